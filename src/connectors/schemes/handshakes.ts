/**
 * URL-verification challenges and handshakes: requests a provider sends to prove the URL is ours
 * (and that we hold the secret) rather than to deliver an event. Each answers with exactly what
 * its provider expects and stores nothing. Every handshake is its provider's own, so it lives in
 * that provider's folder (`providers/<name>/verification.ts`) as a `Handshake` and is listed in its
 * declaration; this file holds only what they share. (A token the operator must read back —
 * Notion's — is no handshake but a declared `webhook.verificationToken`: verificationToken.ts.)
 *
 * `stage` says when it is answered: `before_verify` for handshakes the provider does not sign
 * (they precede any secret), `after_verify` for signed ones. A handshake answered before the
 * signature check is never given the secret (compile.ts passes ""): it must never compute anything
 * keyed by the secret over what the caller sent, or it signs whatever an attacker asks for — an
 * "answer that proves the secret" is only safe once the request itself is proven to be the provider's.
 */
import * as z from "zod";
import type { InboundRequest } from "../types.ts";

export interface HandshakeReply {
  status: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

/** A request that is the handshake but malformed: a 400 `invalid_parameter` naming what is wrong. */
export interface HandshakeRefusal {
  refused: string;
}

export const HANDSHAKE_STAGES = ["before_verify", "after_verify"] as const;

export interface Handshake {
  /** Its name in messages and tests (`dropbox_challenge`). */
  type: string;
  stage: (typeof HANDSHAKE_STAGES)[number];
  /**
   * The reply when `req` is this handshake; undefined when it is an ordinary delivery. `secret` is ""
   * for handshakes answered before the signature check.
   */
  answer(req: InboundRequest, secret: string): HandshakeReply | HandshakeRefusal | undefined;
}

const isHandshake = (value: unknown): value is Handshake => {
  const h = value as Partial<Handshake> | null;
  return typeof h === "object" && h !== null && typeof h.type === "string" && HANDSHAKE_STAGES.includes(h.stage!) && typeof h.answer === "function";
};

export const handshakeSchema = z.custom<Handshake>(isHandshake, { message: "must be a provider's handshake: { type, stage, answer }" });

/** A 200 text/plain answer (with `headers`, e.g. nosniff for an echoed value). */
export const textReply = (body: string, headers?: Record<string, string>): HandshakeReply => ({ status: 200, contentType: "text/plain; charset=utf-8", body, headers });
