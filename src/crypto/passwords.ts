import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;

const r = 8;
const p = 1;
const maxmem = 512 * 1024 * 1024;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string | undefined): Promise<boolean>;
}

/**
 * scrypt with cost N = 2^log2Cost (OWASP's minimum is 2^17, the default). Stored as
 * `scrypt$N$r$p$salt$hash`, so raising the cost later still verifies old hashes.
 */
export function createPasswordHasher(log2Cost: number): PasswordHasher {
  const N = 2 ** log2Cost;
  const hash = async (password: string) => {
    const salt = randomBytes(16);
    const derived = await scryptAsync(password, salt, 32, { N, r, p, maxmem });
    return ["scrypt", N, r, p, salt.toString("base64url"), derived.toString("base64url")].join("$");
  };
  // Verified against when the user does not exist, so a login takes as long either way.
  let decoy: Promise<string> | undefined;

  return {
    hash,
    async verify(password, stored) {
      const target = stored ?? (await (decoy ??= hash(randomBytes(16).toString("hex"))));
      const [scheme, n, rr, pp, salt, expectedText] = target.split("$");
      if (scheme !== "scrypt" || !salt || !expectedText) return false;
      const expected = Buffer.from(expectedText, "base64url");
      const actual = await scryptAsync(password, Buffer.from(salt, "base64url"), expected.length, {
        N: Number(n),
        r: Number(rr),
        p: Number(pp),
        maxmem,
      });
      return timingSafeEqual(actual, expected) && stored !== undefined;
    },
  };
}
