import type { Db } from "../db/database.ts";
import { badInput, type FieldError } from "../errors.ts";
import { MAX_ALLOWED_ORIGINS, normaliseOrigin } from "./redirects.ts";

/** A deployment's Connect settings: where the connect flow may send the end user back to, and how often a connection may be proxied. */
export interface ConnectSettingsView {
  allowedRedirectOrigins: string[];
  /** Proxied requests one connection may make per minute; null: no limit. */
  proxyRateLimitPerMinute: number | null;
}

/** The largest per-connection proxy rate limit that may be set (a sanity bound, not a default). */
export const MAX_PROXY_RATE_LIMIT_PER_MINUTE = 1_000_000;
const SELECTED = { allowedRedirectOrigins: true, proxyRateLimitPerMinute: true } as const;

export type ConnectSettings = ReturnType<typeof createConnectSettings>;

/**
 * Reads and saves Connect settings. Always read from the database, never from a remembered
 * deployment row: removing an origin must stop redirects to it at once. Callers check access first
 * (reading: a member; saving: an owner or admin).
 */
export function createConnectSettings({ db }: { db: Db }) {
  const read = async (deploymentId: string): Promise<ConnectSettingsView> => {
    const row = await db.deployment.findUnique({ where: { id: deploymentId }, select: SELECTED });
    return { allowedRedirectOrigins: row?.allowedRedirectOrigins ?? [], proxyRateLimitPerMinute: row?.proxyRateLimitPerMinute ?? null };
  };

  return {
    read,

    /** Every origin normalised and de-duplicated, at most MAX_ALLOWED_ORIGINS; BAD_USER_INPUT naming each bad one. */
    /** `proxyRateLimitPerMinute`: a whole number 1–1,000,000, null to remove the limit, absent to keep it. */
    async save(deploymentId: string, input: { allowedRedirectOrigins: readonly string[]; proxyRateLimitPerMinute?: number | null }): Promise<ConnectSettingsView> {
      const origins: string[] = [];
      const problems: FieldError[] = [];
      input.allowedRedirectOrigins.forEach((value, index) => {
        const result = normaliseOrigin(value);
        if (!result.ok) problems.push({ field: `allowedRedirectOrigins.${index}`, message: result.message });
        else if (!origins.includes(result.origin)) origins.push(result.origin);
      });
      const limit = input.proxyRateLimitPerMinute;
      if (limit !== undefined && limit !== null && !(Number.isInteger(limit) && limit >= 1 && limit <= MAX_PROXY_RATE_LIMIT_PER_MINUTE)) {
        problems.push({ field: "proxyRateLimitPerMinute", message: `proxyRateLimitPerMinute must be a whole number from 1 to ${MAX_PROXY_RATE_LIMIT_PER_MINUTE}, or null for no limit.` });
      }
      if (problems.length > 0) throw badInput(problems.map((p) => p.message).join(" "), problems);
      if (origins.length > MAX_ALLOWED_ORIGINS) {
        const message = `allowedRedirectOrigins may hold at most ${MAX_ALLOWED_ORIGINS} origins.`;
        throw badInput(message, [{ field: "allowedRedirectOrigins", message }]);
      }
      const row = await db.deployment.update({
        where: { id: deploymentId },
        data: { allowedRedirectOrigins: origins, ...(limit === undefined ? {} : { proxyRateLimitPerMinute: limit }) },
        select: SELECTED,
      });
      return { allowedRedirectOrigins: row.allowedRedirectOrigins, proxyRateLimitPerMinute: row.proxyRateLimitPerMinute };
    },
  };
}
