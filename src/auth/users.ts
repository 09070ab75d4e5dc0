import * as z from "zod";
import type { Clock } from "../clock.ts";
import type { PasswordHasher } from "../crypto/passwords.ts";
import { sha256Hex } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { AppError, parseInput } from "../errors.ts";
import { displayName } from "../organizations/names.ts";
import { findInvitationByToken, joinThrough } from "../organizations/organizations.ts";
import { addressKey, type RateLimit } from "../ratelimit/limiter.ts";
import type { LoginGuard } from "./loginGuard.ts";
import type { Sessions } from "./sessions.ts";

export const email = z
  .string()
  .trim()
  .max(254, "is too long")
  .pipe(z.email("is not an email address"))
  .transform((value) => value.toLowerCase());

// NIST 800-63B: at least 8 characters, allow long passphrases, no composition rules.
const password = z.string().min(8, "must be at least 8 characters").max(256, "must be at most 256 characters");

const signUpInput = z.object({
  email,
  password,
  name: displayName(100),
  invitationToken: z.string().max(200, "is not a valid invitation link").optional(),
});

export type SignUpPolicy = "open" | "closed";

export const SIGNUP_CLOSED_MESSAGE =
  "Sign-up is closed on this Switchyard. Ask an owner of your organization to invite your email address " +
  "(console: Members → Invite) and open the invitation link they send you. The operator can also open sign-up with SIGNUP=open.";

const NOT_AN_OWNERS_INVITATION =
  "Sign-up is closed on this Switchyard, and only an invitation from an owner of the organization lets someone without an account sign up. " +
  "Ask an owner to invite your email address.";

// Serializes sign-ups while sign-up is closed, so two "first" accounts cannot both be created.
const SIGNUP_LOCK = 0x5359_5355; // "SYSU"

/**
 * A new account. With `invitationToken` (the secret of an invitation link, sent to this address)
 * the account joins that organization in the same transaction; no other invitation is accepted on
 * the way, since typing an address proves nothing about owning it. With sign-up closed, only the
 * install's first account and people signing up through an invitation from an owner get in.
 */
export async function signUp(
  db: Db,
  hasher: PasswordHasher,
  input: { email: string; password: string; name: string; invitationToken?: string | null },
  policy: SignUpPolicy,
  now: Date,
) {
  const values = parseInput(signUpInput, { ...input, invitationToken: input.invitationToken ?? undefined });
  const invitation = values.invitationToken === undefined ? undefined : await findInvitationByToken(db, values.invitationToken, now);
  if (invitation === null) {
    throw new AppError("NOT_FOUND", "This invitation link is not valid: it may have expired, been revoked, been replaced by a newer one, or been used already.");
  }
  if (invitation && invitation.email !== values.email) {
    throw new AppError("BAD_USER_INPUT", "This invitation was sent to a different email address. Sign up with the address it was sent to.", {
      fields: [{ field: "email", message: "is not the address this invitation was sent to" }],
    });
  }
  // Refused before the (deliberately slow) hash: a closed install should not spend CPU on strangers.
  if (policy === "closed") {
    if (invitation) {
      const inviter = invitation.invitedById
        ? await db.membership.findUnique({ where: { organizationId_userId: { organizationId: invitation.organizationId, userId: invitation.invitedById } }, select: { role: true } })
        : null;
      if (inviter?.role !== "OWNER") throw new AppError("FORBIDDEN", NOT_AN_OWNERS_INVITATION);
    } else if (await db.user.findFirst({ select: { id: true } })) {
      throw new AppError("FORBIDDEN", SIGNUP_CLOSED_MESSAGE);
    }
  }
  const passwordHash = await hasher.hash(values.password);
  try {
    return await db.$transaction(async (tx) => {
      if (policy === "closed" && !invitation) {
        await tx.$executeRaw`select 1 from (select pg_advisory_xact_lock(${SIGNUP_LOCK}::bigint)) as locked`;
        if (await tx.user.findFirst({ select: { id: true } })) throw new AppError("FORBIDDEN", SIGNUP_CLOSED_MESSAGE);
      }
      const user = await tx.user.create({ data: { email: values.email, name: values.name, passwordHash } });
      // Used once: a revoked or renewed invitation (another token) fails here and no account is made.
      if (invitation) await joinThrough(tx, invitation, user.id);
      return user;
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError("BAD_USER_INPUT", "An account with this email already exists. Log in instead.", {
        fields: [{ field: "email", message: "is already registered" }],
      });
    }
    throw error;
  }
}

// Limiter keys are derived from what the caller typed, which may be huge: a digest keeps them small.
const accountKey = (typed: string) => sha256Hex(typed.trim().toLowerCase());

/** Same answer and about the same time whether the email is unknown or the password wrong. */
export async function logIn(db: Db, hasher: PasswordHasher, guard: LoginGuard, input: { email: string; password: string }, ip: string) {
  const normalized = input.email.trim().toLowerCase();
  // Unknown addresses are limited exactly like real ones: the limits reveal nothing.
  const attempt = await guard.attempt(accountKey(normalized), ip);
  const user = await db.user.findUnique({ where: { email: normalized } });
  const ok = await hasher.verify(input.password, user?.passwordHash);
  if (!user || !ok) {
    await attempt.failed();
    throw new AppError("UNAUTHENTICATED", "Email or password is incorrect.");
  }
  await attempt.succeeded();
  return user;
}

const changePasswordInput = z.object({ currentPassword: z.string().max(1024, "is not correct"), newPassword: password });

/**
 * Replaces the password after checking the current one (a guess counts against the same limits as
 * a log-in), then ends every other session of the user; `keepSessionId` (the caller's) stays.
 */
export async function changePassword(
  db: Db,
  sessions: Sessions,
  hasher: PasswordHasher,
  guard: LoginGuard,
  userId: string,
  input: { currentPassword: string; newPassword: string },
  ip: string,
  keepSessionId: string,
): Promise<void> {
  const values = parseInput(changePasswordInput, input);
  const user = await db.user.findUniqueOrThrow({ where: { id: userId } });
  const attempt = await guard.attempt(accountKey(user.email), ip);
  if (!(await hasher.verify(values.currentPassword, user.passwordHash))) {
    await attempt.failed();
    throw new AppError("BAD_USER_INPUT", "The current password is not correct.", { fields: [{ field: "currentPassword", message: "is not correct" }] });
  }
  await attempt.succeeded();
  if (values.newPassword === values.currentPassword) {
    throw new AppError("BAD_USER_INPUT", "The new password must differ from the current one.", {
      fields: [{ field: "newPassword", message: "must differ from the current password" }],
    });
  }
  await db.user.update({ where: { id: userId }, data: { passwordHash: await hasher.hash(values.newPassword) } });
  await sessions.revoke(userId, { except: keepSessionId });
}

/** What accounts are built from: the users' table, the hasher, and the limits on guessing and signing up. */
export interface UsersDeps {
  db: Db;
  passwords: PasswordHasher;
  sessions: Sessions;
  /** LOGIN_RATE_LIMIT_*: log-ins and password changes (./loginGuard.ts). */
  loginGuard: LoginGuard;
  /** SIGNUP_RATE_LIMIT_PER_HOUR per address. */
  signupLimit: RateLimit;
  signup: SignUpPolicy;
  /** Whether an invitation link has expired. */
  clock: Clock;
}

/** Sign-up, log-in and password changes, each behind its rate limit; `ip` is the caller's address. */
export function createUsers({ db, passwords, sessions, loginGuard, signupLimit, signup, clock }: UsersDeps) {
  return {
    async signUp(input: Parameters<typeof signUp>[2], ip: string) {
      await signupLimit.consume(addressKey(ip));
      return signUp(db, passwords, input, signup, clock.now());
    },
    logIn: (input: { email: string; password: string }, ip: string) => logIn(db, passwords, loginGuard, input, ip),
    /** Only for the logged-in user themself (`userId` is the caller's session's user). */
    changePassword: (userId: string, input: { currentPassword: string; newPassword: string }, ip: string, keepSessionId: string) =>
      changePassword(db, sessions, passwords, loginGuard, userId, input, ip, keepSessionId),
  };
}
export type Users = ReturnType<typeof createUsers>;
