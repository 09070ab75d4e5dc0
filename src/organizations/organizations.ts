import * as z from "zod";
import type { SecretBox } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { createSigningSecret } from "../deployments/signingSecrets.ts";
import { randomToken, sha256Hex } from "../crypto/secrets.ts";
import { AppError, forbidden, notFound, parseInput } from "../errors.ts";
import type { Invitation, Prisma, Role } from "../generated/prisma/client.ts";
import { displayName, UNPRINTABLE, UNPRINTABLE_MESSAGE } from "./names.ts";

/**
 * Where a removed membership is announced, so that member's live subscriptions on this instance end
 * (auth/revocations.ts implements it; named here so organizations/ knows nothing of auth/).
 */
export interface MembershipRevocations {
  announce(revocation: { kind: "membership"; userId: string; organizationId: string }): void;
}

export const DEFAULT_DEPLOYMENTS = ["development", "production"] as const;

const organizationName = displayName(100);
// Deployment names show up in keys and URLs: keep them to a slug.
const deploymentName = z
  .string()
  .refine((value) => !UNPRINTABLE.test(value), UNPRINTABLE_MESSAGE)
  .trim()
  .min(1, "is required")
  .max(63, "must be at most 63 characters")
  .regex(/^[a-z0-9][a-z0-9-]*$/, "may contain lower-case letters, digits and dashes, starting with a letter or digit");

async function addDeployment(tx: Prisma.TransactionClient, box: SecretBox, organizationId: string, name: string) {
  const deployment = await tx.deployment.create({ data: { organizationId, name } });
  await createSigningSecret(tx, box, deployment.id);
  return deployment;
}

export type OrganizationCreation = "anyone" | "owners";

export const ORGANIZATION_CREATION_MESSAGE =
  "Only owners of an organization can create organizations on this Switchyard (ORGANIZATION_CREATION=owners). " +
  "Ask an owner to create it, or to make you an owner.";

/**
 * A new organization owned by its creator, with a `development` and a `production` deployment.
 * With `policy` "owners", only a user who owns an organization may create one (and anybody while
 * none exists: the install's first operator): else any member could make themselves an owner of a
 * fresh organization and invite strangers in past a closed sign-up.
 */
export async function createOrganization(db: Db, box: SecretBox, userId: string, name: string, policy: OrganizationCreation = "anyone") {
  const values = parseInput(z.object({ name: organizationName }), { name });
  if (policy === "owners") {
    const owns = await db.membership.findFirst({ where: { userId, role: "OWNER" }, select: { id: true } });
    if (!owns && (await db.organization.findFirst({ select: { id: true } }))) throw forbidden(ORGANIZATION_CREATION_MESSAGE);
  }
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

/**
 * Removes a membership. Only owners remove owners, and the last owner cannot leave, or nobody could
 * manage the organization. `actorRole` is the remover's role here. Once it is committed, the removed
 * user's live subscriptions on this instance are told (src/auth/revocations.ts).
 */
export async function removeMember(db: Db, revocations: MembershipRevocations, organizationId: string, userId: string, actorRole: Role | undefined) {
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
  revocations.announce({ kind: "membership", userId, organizationId });
  return removed;
}

const memberInput = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email("is not an email address")),
  role: z.enum(["OWNER", "ADMIN", "MEMBER"]),
});

/** How long an invitation waits to be accepted. */
export const INVITATION_TTL_DAYS = 14;

/** The secret of an invitation's link: shown once, stored as its sha256. */
const newInvitationToken = () => `sy_inv_${randomToken(32)}`;
export const invitationTokenHash = (token: string) => sha256Hex(token.trim());

/** A pending invitation and, only in the answer to the inviter, the secret of its link. */
export type IssuedInvitation = Invitation & { token?: string };

/**
 * Invites an address into the organization with a role, whether or not it has an account: the
 * answer is the same either way, so inviting reveals nothing about who has signed up. The person
 * joins by opening the invitation's link (its secret token) while logged in with that address, or
 * by signing up through it. Inviting an address again renews the invitation (role, expiry) and
 * issues a new link; the old link stops working. Switchyard sends no mail: the inviter passes the
 * link on. `actorRole` is the inviter's role: only owners invite owners, and only owners change
 * an owner's pending invitation.
 */
export async function inviteMember(
  db: Db,
  organizationId: string,
  invitedById: string,
  actorRole: Role | undefined,
  input: { email: string; role: string },
  now: Date,
): Promise<IssuedInvitation> {
  const values = parseInput(memberInput, input);
  if (values.role === "OWNER" && actorRole !== "OWNER") throw forbidden("Only owners can invite owners.");
  // Members can see who is in their organization, so this says nothing new about the address.
  if (await db.membership.findFirst({ where: { organizationId, user: { email: values.email } }, select: { id: true } })) {
    throw new AppError("BAD_USER_INPUT", "This person is already a member.", { fields: [{ field: "email", message: "is already a member" }] });
  }
  const existing = await db.invitation.findUnique({ where: { organizationId_email: { organizationId, email: values.email } } });
  if (existing?.role === "OWNER" && existing.expiresAt > now && actorRole !== "OWNER") {
    throw forbidden("Only owners can change an owner's invitation.");
  }
  const token = newInvitationToken();
  const tokenHash = invitationTokenHash(token);
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_DAYS * 86_400_000);
  const invitation = await db.invitation.upsert({
    where: { organizationId_email: { organizationId, email: values.email } },
    create: { organizationId, email: values.email, role: values.role, invitedById, expiresAt, tokenHash },
    update: { role: values.role, invitedById, expiresAt, tokenHash, createdAt: now },
  });
  return { ...invitation, token };
}

/** A pending invitation: unexpired at `now` (an accepted one is deleted, an expired one admits nobody). */
export const pendingAt = (now: Date) => ({ expiresAt: { gt: now } }) satisfies Prisma.InvitationWhereInput;

/** The invitation, if it exists; callers check that the caller may manage its organization. */
export function findInvitation(db: Db, id: string) {
  return db.invitation.findUnique({ where: { id } });
}

/** The pending invitation whose link carries `token`, if any: unexpired at `now`. */
export function findInvitationByToken(db: Db, token: string, now: Date) {
  if (!token.trim() || token.length > 200) return Promise.resolve(null);
  return db.invitation.findFirst({ where: { tokenHash: invitationTokenHash(token), ...pendingAt(now) } });
}

/** Withdraws a pending invitation. Only owners withdraw an owner's invitation. */
export async function revokeInvitation(db: Db, invitation: Invitation, actorRole: Role | undefined) {
  if (invitation.role === "OWNER" && actorRole !== "OWNER") throw forbidden("Only owners can revoke an owner's invitation.");
  await db.invitation.deleteMany({ where: { id: invitation.id } });
}

const INVITATION_NOT_FOUND = "This invitation link is not valid: it may have expired, been revoked, been replaced by a newer one, or been used already.";

/**
 * Turns the invitation behind `token` into a membership of `user`, who must be logged in with the
 * address it was sent to. The token is what proves the inviter meant this person; the address is
 * what keeps a leaked link from working for someone else. Used once: the invitation is deleted in
 * the same transaction.
 */
export async function acceptInvitation(db: Db, user: { id: string; email: string }, token: string, now: Date) {
  const invitation = await findInvitationByToken(db, token, now);
  if (!invitation) throw new AppError("NOT_FOUND", INVITATION_NOT_FOUND);
  if (invitation.email !== user.email) {
    throw forbidden("This invitation was sent to a different email address. Log in with the address it was sent to.");
  }
  return db.$transaction((tx) => joinThrough(tx, invitation, user.id));
}

/** Inside a transaction: deletes the invitation (only one caller wins) and adds its membership. */
export async function joinThrough(tx: Prisma.TransactionClient, invitation: Invitation, userId: string) {
  const { count } = await tx.invitation.deleteMany({ where: { id: invitation.id, tokenHash: invitation.tokenHash } });
  if (count === 0) throw new AppError("NOT_FOUND", INVITATION_NOT_FOUND);
  const already = await tx.membership.findUnique({ where: { organizationId_userId: { organizationId: invitation.organizationId, userId } } });
  if (already) return already;
  return tx.membership.create({ data: { organizationId: invitation.organizationId, userId, role: invitation.role } });
}

/** Turns down an invitation sent to the user's address (NOT_FOUND for anyone else's). */
export async function declineInvitation(db: Db, user: { email: string }, id: string) {
  const { count } = await db.invitation.deleteMany({ where: { id, email: user.email } });
  if (count === 0) throw notFound("Invitation");
}

/**
 * The organization operations that need more than the database: sealing a new deployment's signing
 * secret, announcing a removal. The ids they take are checked before: `createDeployment` and
 * `removeMember` are reached only through the `organizationAdmin` auth scope (graphql/builder.ts),
 * which asks the access guard (auth/access.ts) about that organization; `actorRole` is its answer.
 */
export function createOrganizations({ db, box, revocations, creation }: { db: Db; box: SecretBox; revocations: MembershipRevocations; creation: OrganizationCreation }) {
  return {
    create: (userId: string, name: string) => createOrganization(db, box, userId, name, creation),
    createDeployment: (organizationId: string, name: string) => createDeployment(db, box, organizationId, name),
    removeMember: (organizationId: string, userId: string, actorRole: Role | undefined) => removeMember(db, revocations, organizationId, userId, actorRole),
  };
}
export type Organizations = ReturnType<typeof createOrganizations>;
