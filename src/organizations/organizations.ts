import { z } from "zod";
import { revocationsOf } from "../auth/revocations.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { createSigningSecret } from "../deployments/signingSecrets.ts";
import { AppError, forbidden, parseInput } from "../errors.ts";
import type { Invitation, Membership, Prisma, Role } from "../generated/prisma/client.ts";

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
    if (isUniqueViolation(error)) {
      throw new AppError("BAD_USER_INPUT", `A deployment named "${values.name}" already exists in this organization.`, {
        fields: [{ field: "name", message: "is already taken" }],
      });
    }
    throw error;
  }
}

const memberInput = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email("is not an email address")),
  role: z.enum(["OWNER", "ADMIN", "MEMBER"]),
});

/** Adds an existing user to the organization by email (an address with no account is invited instead: inviteMember). */
export async function addMember(db: Db, organizationId: string, input: { email: string; role: string }) {
  const values = parseInput(memberInput, input);
  const user = await db.user.findUnique({ where: { email: values.email } });
  if (!user) {
    throw new AppError("BAD_USER_INPUT", "No user has signed up with this email yet. Ask them to sign up, then add them.", {
      fields: [{ field: "email", message: "has no account" }],
    });
  }
  try {
    return await db.membership.create({ data: { organizationId, userId: user.id, role: values.role } });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError("BAD_USER_INPUT", "This user is already a member.", { fields: [{ field: "email", message: "is already a member" }] });
    }
    throw error;
  }
}

/**
 * Removes a membership. Only owners remove owners, and the last owner cannot leave, or nobody could
 * manage the organization. `actorRole` is the remover's role here. Once it is committed, the removed
 * user's live subscriptions on this instance are told (src/auth/revocations.ts).
 */
export async function removeMember(db: Db, organizationId: string, userId: string, actorRole: Role | undefined) {
  const removed = await db.$transaction(async (tx) => {
    // Removals in one organization take turns: two owners removing each other at once must not
    // both see "two owners left" and leave none.
    await tx.$queryRaw`select id from organization where id = ${organizationId} for update`;
    const membership = await tx.membership.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
    if (!membership) throw new AppError("NOT_FOUND", "This user is not a member of the organization.");
    if (membership.role === "OWNER" && actorRole !== "OWNER") throw forbidden("Only owners can remove owners.");
    if (membership.role === "OWNER") {
      const owners = await tx.membership.count({ where: { organizationId, role: "OWNER" } });
      if (owners === 1) throw new AppError("BAD_USER_INPUT", "The last owner cannot be removed. Make someone else an owner first.");
    }
    await tx.membership.delete({ where: { id: membership.id } });
    return membership;
  });
  revocationsOf(db).announce({ kind: "membership", userId, organizationId });
  return removed;
}

/** How long an invitation waits for its address to sign up. */
export const INVITATION_TTL_DAYS = 14;

/**
 * Brings an address into the organization: a user who has an account is added at once (as
 * addMember); an address without one gets a pending invitation, renewed (role, expiry) when invited
 * again. Switchyard sends no mail: the inviter tells the person to sign up with that address.
 */
export async function inviteMember(
  db: Db,
  organizationId: string,
  invitedById: string,
  input: { email: string; role: string },
): Promise<{ membership: Membership } | { invitation: Invitation }> {
  const values = parseInput(memberInput, input);
  if (await db.user.findUnique({ where: { email: values.email }, select: { id: true } })) {
    return { membership: await addMember(db, organizationId, values) };
  }
  const expiresAt = new Date(Date.now() + INVITATION_TTL_DAYS * 86_400_000);
  const invitation = await db.invitation.upsert({
    where: { organizationId_email: { organizationId, email: values.email } },
    create: { organizationId, email: values.email, role: values.role, invitedById, expiresAt },
    update: { role: values.role, invitedById, expiresAt, createdAt: new Date() },
  });
  return { invitation };
}

/** The invitation, if it exists; callers check that the caller may manage its organization. */
export function findInvitation(db: Db, id: string) {
  return db.invitation.findUnique({ where: { id } });
}

export async function revokeInvitation(db: Db, id: string) {
  await db.invitation.deleteMany({ where: { id } });
}
