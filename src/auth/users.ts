import { z } from "zod";
import type { PasswordHasher } from "../crypto/passwords.ts";
import { sha256Hex } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { AppError, parseInput } from "../errors.ts";
import type { LoginGuard } from "./loginGuard.ts";
import { revokeSessions } from "./sessions.ts";

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
  name: z.string().trim().min(1, "is required").max(100, "must be at most 100 characters"),
});

export type SignUpPolicy = "open" | "closed";

export const SIGNUP_CLOSED_MESSAGE =
  "Sign-up is closed on this Switchyard. Ask an owner or admin of your organization to invite your email address " +
  "(console: Members → Add or invite), then sign up with that address. The operator can also open sign-up with SIGNUP=open.";

// Serializes sign-ups while sign-up is closed, so two "first" accounts cannot both be created.
const SIGNUP_LOCK = 0x5359_5355; // "SYSU"

/**
 * A new account. With sign-up closed, only the install's first account and invited addresses get
 * in. Every pending invitation of the address becomes a membership in the same transaction.
 */
export async function signUp(db: Db, hasher: PasswordHasher, input: { email: string; password: string; name: string }, policy: SignUpPolicy) {
  const values = parseInput(signUpInput, input);
  const invited = { email: values.email, expiresAt: { gt: new Date() } };
  // Refused before the (deliberately slow) hash: a closed install should not spend CPU on strangers.
  if (policy === "closed" && !(await db.invitation.findFirst({ where: invited, select: { id: true } })) && (await db.user.findFirst({ select: { id: true } }))) {
    throw new AppError("FORBIDDEN", SIGNUP_CLOSED_MESSAGE);
  }
  const passwordHash = await hasher.hash(values.password);
  try {
    return await db.$transaction(async (tx) => {
      const invitations = await tx.invitation.findMany({ where: invited });
      if (policy === "closed" && invitations.length === 0) {
        await tx.$executeRaw`select 1 from (select pg_advisory_xact_lock(${SIGNUP_LOCK}::bigint)) as locked`;
        if (await tx.user.findFirst({ select: { id: true } })) throw new AppError("FORBIDDEN", SIGNUP_CLOSED_MESSAGE);
      }
      const user = await tx.user.create({ data: { email: values.email, name: values.name, passwordHash } });
      for (const invitation of invitations) {
        await tx.membership.create({ data: { organizationId: invitation.organizationId, userId: user.id, role: invitation.role } });
      }
      // Expired ones too: the address has an account now, so they can never be used.
      await tx.invitation.deleteMany({ where: { email: values.email } });
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
  await revokeSessions(db, userId, { except: keepSessionId });
}
