import { z } from "zod";
import type { SecretBox } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import { createSigningSecret } from "../deployments/signingSecrets.ts";
import { AppError, parseInput } from "../errors.ts";
import type { Prisma } from "../generated/prisma/client.ts";

export const DEFAULT_DEPLOYMENTS = ["development", "production"] as const;

const organizationName = z.string().trim().min(1, "is required").max(100, "must be at most 100 characters");
// Deployment names show up in keys and URLs: keep them to a slug.
const deploymentName = z
  .string()
  .trim()
  .min(1, "is required")
  .max(63, "must be at most 63 characters")
  .regex(/^[a-z0-9][a-z0-9-]*$/, "may contain lower-case letters, digits and dashes, starting with a letter or digit");

async function addDeployment(tx: Prisma.TransactionClient, box: SecretBox, organizationId: string, name: string) {
  const deployment = await tx.deployment.create({ data: { organizationId, name } });
  await createSigningSecret(tx, box, deployment.id);
  return deployment;
}

/** A new organization owned by its creator, with a `development` and a `production` deployment. */
export async function createOrganization(db: Db, box: SecretBox, userId: string, name: string) {
  const values = parseInput(z.object({ name: organizationName }), { name });
  return db.$transaction(async (tx) => {
    const organization = await tx.organization.create({ data: { name: values.name } });
    await tx.membership.create({ data: { organizationId: organization.id, userId, role: "OWNER" } });
    for (const deployment of DEFAULT_DEPLOYMENTS) await addDeployment(tx, box, organization.id, deployment);
    return organization;
  });
}

export async function createDeployment(db: Db, box: SecretBox, organizationId: string, name: string) {
  const values = parseInput(z.object({ name: deploymentName }), { name });
  try {
    return await db.$transaction((tx) => addDeployment(tx, box, organizationId, values.name));
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") {
      throw new AppError("BAD_USER_INPUT", `A deployment named "${values.name}" already exists in this organization.`, {
        fields: [{ field: "name", message: "is already taken" }],
      });
    }
    throw error;
  }
}
