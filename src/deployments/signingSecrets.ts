import { randomBytes } from "node:crypto";
import type { Clock } from "../clock.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import type { Prisma } from "../generated/prisma/client.ts";

type Tx = Prisma.TransactionClient;

export const SIGNING_SECRET_OVERLAP_MS = 24 * 3_600_000;

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64, as Svix issues them. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

export async function createSigningSecret(tx: Tx, box: SecretBox, deploymentId: string) {
  await tx.signingSecret.create({ data: { deploymentId, secretEncrypted: box.seal(newSigningSecret()) } });
}

/** The secrets that sign right now, newest first: the current one, and the previous one during its 24 h overlap. */
export async function activeSigningSecrets(db: Db | Tx, box: SecretBox, deploymentId: string, now: Date): Promise<string[]> {
  const rows = await db.signingSecret.findMany({
    where: { deploymentId, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
    orderBy: { createdAt: "desc" },
  });
  return rows.map((row) => box.open(row.secretEncrypted));
}

/** A new current secret; the old one keeps signing alongside for 24 hours so receivers can switch over. */
export async function rotateSigningSecret(db: Db, box: SecretBox, deploymentId: string, now: Date) {
  await db.$transaction(async (tx) => {
    await tx.signingSecret.deleteMany({ where: { deploymentId, expiresAt: { not: null } } });
    await tx.signingSecret.updateMany({
      where: { deploymentId, expiresAt: null },
      data: { expiresAt: new Date(now.getTime() + SIGNING_SECRET_OVERLAP_MS) },
    });
    await createSigningSecret(tx, box, deploymentId);
  });
}

/**
 * A deployment's signing secrets, sealed at rest. The deploymentId is the caller's to check: the
 * GraphQL fields that reach this (`Deployment.signingSecret`, `rotateSigningSecret`) are guarded by
 * the `deploymentMember` / `deploymentAdmin` auth scopes (graphql/builder.ts) on that id.
 */
export function createSigningSecrets({ db, box, clock }: { db: Db; box: SecretBox; clock: Clock }) {
  return {
    current: async (deploymentId: string): Promise<string | null> => (await activeSigningSecrets(db, box, deploymentId, clock.now()))[0] ?? null,
    rotate: (deploymentId: string) => rotateSigningSecret(db, box, deploymentId, clock.now()),
  };
}
export type SigningSecrets = ReturnType<typeof createSigningSecrets>;
