import { z } from "zod";
import type { PasswordHasher } from "../crypto/passwords.ts";
import type { Db } from "../db/database.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { AppError, parseInput } from "../errors.ts";

const email = z
  .string()
  .trim()
  .max(254, "is too long")
  .pipe(z.email("is not an email address"))
  .transform((value) => value.toLowerCase());

const signUpInput = z.object({
  email,
  // NIST 800-63B: at least 8 characters, allow long passphrases, no composition rules.
  password: z.string().min(8, "must be at least 8 characters").max(256, "must be at most 256 characters"),
  name: z.string().trim().min(1, "is required").max(100, "must be at most 100 characters"),
});

export async function signUp(db: Db, hasher: PasswordHasher, input: { email: string; password: string; name: string }) {
  const values = parseInput(signUpInput, input);
  const passwordHash = await hasher.hash(values.password);
  try {
    return await db.user.create({ data: { email: values.email, name: values.name, passwordHash } });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError("BAD_USER_INPUT", "An account with this email already exists. Log in instead.", {
        fields: [{ field: "email", message: "is already registered" }],
      });
    }
    throw error;
  }
}

/** Same answer and about the same time whether the email is unknown or the password wrong. */
export async function logIn(db: Db, hasher: PasswordHasher, input: { email: string; password: string }) {
  const normalized = input.email.trim().toLowerCase();
  const user = await db.user.findUnique({ where: { email: normalized } });
  const ok = await hasher.verify(input.password, user?.passwordHash);
  if (!user || !ok) throw new AppError("UNAUTHENTICATED", "Email or password is incorrect.");
  return user;
}
