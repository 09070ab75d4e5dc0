/**
 * A verification scheme only one provider uses lives in that provider's folder as an `OwnScheme`:
 * its parameters (zod) and its check travel together, and the shared code calls it without knowing
 * its name. The declaration names it `scheme: { own: boxSignature, params: { … } }`; its parameters
 * are validated with the declaration, errors naming `webhook.scheme.params.<field>`. This folder
 * keeps only the schemes two or more providers use.
 */
import * as z from "zod";
import type { VerifyResult } from "../types.ts";
import type { SchemeInput } from "./common.ts";

export interface OwnScheme<P extends z.ZodType = z.ZodType> {
  /** Its name in the catalog and docs/connectors.md (`box`). */
  type: string;
  params: P;
  verify(params: z.output<P>, input: SchemeInput): VerifyResult;
  /** Whether a valid signature also proves the request recent (see `signsTimestamp` in index.ts). */
  signsTimestamp: boolean;
  /** The JWKS `verify` is given as `keys` (fetched and cached by the caller): `endpoints.jwksUrl`. */
  jwksUrl?(params: z.output<P>): string;
  /** Where the secret is carried inside the JSON body: removed before the body is stored or forwarded. */
  secretPath?(params: z.output<P>): string;
}

/** Typed identity helper for a provider's scheme: `verify` is given its own parameters' type. */
export function ownScheme<P extends z.ZodType>(scheme: OwnScheme<P>): OwnScheme<P> {
  return scheme;
}

/** A provider's own scheme as its declaration names it. */
export interface OwnSchemeDeclaration {
  own: OwnScheme;
  /** Left out: all of the scheme's defaults. */
  params?: unknown;
}

/** After validation: the scheme's name, the scheme, its parameters with their defaults. */
export interface OwnSchemeParams {
  type: string;
  own: OwnScheme;
  params: unknown;
}

const isOwnScheme = (value: unknown): value is OwnScheme => {
  const s = value as Partial<OwnScheme> | null;
  return typeof s === "object" && s !== null && typeof s.type === "string" && s.params instanceof z.ZodType && typeof s.verify === "function" && typeof s.signsTimestamp === "boolean";
};

export const ownSchemeSchema = z
  .object({
    own: z.custom<OwnScheme>(isOwnScheme, { message: "must be a provider's own scheme: { type, params, verify, signsTimestamp }" }),
    params: z.unknown().optional(),
  })
  .strict()
  .transform((declared, ctx): OwnSchemeParams => {
    const parsed = declared.own.params.safeParse(declared.params ?? {});
    if (parsed.success) return { type: declared.own.type, own: declared.own, params: parsed.data };
    for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: ["params", ...issue.path] });
    return z.NEVER;
  });
