import type { Redis } from "ioredis";
import { addressKey, consumeOrThrow, createLimiter, rateLimited } from "../ratelimit/limiter.ts";

/**
 * Brute-force protection for everything that checks a password (logIn, changePassword), after
 * rate-limiter-flexible's "login endpoint protection" recipe, plus a per-account backoff that an
 * owner at a clean address steps around. docs/security.md, "Logins and sign-ups", is the design:
 *
 * 1. per address, any account: `perAddressPerHour` failed attempts, then refused for the rest of the hour;
 * 2. per (account, address): `perAccountAndAddress` attempts per 15 minutes; success clears them;
 * 3. per account, from anywhere: after `accountFreeFailures` failures in 24 h, one attempt per
 *    backoff period, which doubles from 30 s to 15 min — except from an address with no failed
 *    attempt in the last hour, which is let through (and, if it fails, is no longer clean).
 */
const BACKOFF_FIRST_SECONDS = 30;
const BACKOFF_MAX_SECONDS = 15 * 60;
const ACCOUNT_WINDOW_SECONDS = 24 * 3600;

export interface LoginAttempt {
  /** The password was right: the attempt does not count against the address and clears (account, address). */
  succeeded(): Promise<void>;
  /** The password was wrong: the account moves closer to (or further into) its backoff. */
  failed(): Promise<void>;
}

export interface LoginGuard {
  /**
   * Call before checking a password for `account` (any stable key for the typed address) from `ip`;
   * throws RATE_LIMITED (with retryAfter) when this attempt must wait.
   */
  attempt(account: string, ip: string): Promise<LoginAttempt>;
}

export function createLoginGuard(options: {
  perAddressPerHour: number;
  perAccountAndAddress: number;
  accountFreeFailures: number;
  redis?: Redis;
  onFallback?: () => void;
}): LoginGuard {
  const { redis, onFallback } = options;
  const byAddress = createLimiter({ name: "login-address", points: options.perAddressPerHour, durationSeconds: 3600, redis, onFallback });
  const byAccountAndAddress = createLimiter({ name: "login", points: options.perAccountAndAddress, durationSeconds: 15 * 60, redis, onFallback });
  const accountFailures = createLimiter({ name: "login-account", points: Number.MAX_SAFE_INTEGER, durationSeconds: ACCOUNT_WINDOW_SECONDS, redis, onFallback });
  // One point per backoff period: the first attempt of a period takes it atomically (also in Redis),
  // every other attempt in that period is refused with the time left.
  const accountGate = createLimiter({ name: "login-gate", points: 1, durationSeconds: BACKOFF_MAX_SECONDS, redis, onFallback });

  return {
    async attempt(account, ip) {
      const address = addressKey(ip);
      const pair = `${account}\n${address}`;
      const fromAddress = await consumeOrThrow(byAddress, address);
      await consumeOrThrow(byAccountAndAddress, pair);

      // Clean: this is the only unsuccessful attempt from the address in its hour (the counter is atomic).
      const clean = fromAddress.consumedPoints <= 1;
      const failures = (await accountFailures.get(account))?.consumedPoints ?? 0;
      if (failures >= options.accountFreeFailures && !clean) {
        const wait = Math.min(BACKOFF_MAX_SECONDS, BACKOFF_FIRST_SECONDS * 2 ** (failures - options.accountFreeFailures));
        const gate = await accountGate.penalty(account, 1, { customDuration: wait });
        if (gate.consumedPoints > 1) throw rateLimited(gate.msBeforeNext);
      }

      return {
        async succeeded() {
          await Promise.all([byAddress.reward(address, 1), byAccountAndAddress.delete(pair)]);
        },
        async failed() {
          await accountFailures.penalty(account, 1);
        },
      };
    },
  };
}
