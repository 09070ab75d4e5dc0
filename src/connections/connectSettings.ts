import type { Db } from "../db/database.ts";
import { badInput, type FieldError } from "../errors.ts";
import { MAX_ALLOWED_ORIGINS, normaliseOrigin } from "./redirects.ts";

/** A deployment's Connect settings: where the connect flow may send the end user back to. */
export interface ConnectSettingsView {
  allowedRedirectOrigins: string[];
}

export type ConnectSettings = ReturnType<typeof createConnectSettings>;

/**
 * Reads and saves Connect settings. Always read from the database, never from a remembered
 * deployment row: removing an origin must stop redirects to it at once. Callers check access first
 * (reading: a member; saving: an owner or admin).
 */
export function createConnectSettings({ db }: { db: Db }) {
  const read = async (deploymentId: string): Promise<ConnectSettingsView> => {
    const row = await db.deployment.findUnique({ where: { id: deploymentId }, select: { allowedRedirectOrigins: true } });
    return { allowedRedirectOrigins: row?.allowedRedirectOrigins ?? [] };
  };

  return {
    read,

    /** Every origin normalised and de-duplicated, at most MAX_ALLOWED_ORIGINS; BAD_USER_INPUT naming each bad one. */
    async save(deploymentId: string, input: { allowedRedirectOrigins: readonly string[] }): Promise<ConnectSettingsView> {
      const origins: string[] = [];
      const problems: FieldError[] = [];
      input.allowedRedirectOrigins.forEach((value, index) => {
        const result = normaliseOrigin(value);
        if (!result.ok) problems.push({ field: `allowedRedirectOrigins.${index}`, message: result.message });
        else if (!origins.includes(result.origin)) origins.push(result.origin);
      });
      if (problems.length > 0) throw badInput(problems.map((p) => p.message).join(" "), problems);
      if (origins.length > MAX_ALLOWED_ORIGINS) {
        const message = `allowedRedirectOrigins may hold at most ${MAX_ALLOWED_ORIGINS} origins.`;
        throw badInput(message, [{ field: "allowedRedirectOrigins", message }]);
      }
      const row = await db.deployment.update({ where: { id: deploymentId }, data: { allowedRedirectOrigins: origins }, select: { allowedRedirectOrigins: true } });
      return { allowedRedirectOrigins: row.allowedRedirectOrigins };
    },
  };
}
