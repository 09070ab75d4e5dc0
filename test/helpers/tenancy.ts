import { expect } from "vitest";
import { errorCode, type GraphQLResult } from "./testApp.ts";

/** The six callers every tenancy table runs an operation as. */
export type Who = "owner" | "member" | "ownKey" | "otherUser" | "otherKey" | "nobody";
export const everyone: Who[] = ["owner", "member", "ownKey", "otherUser", "otherKey", "nobody"];

/**
 * The rule every tenancy row follows: the allowed callers succeed, nobody is UNAUTHENTICATED, and
 * the rest get `denied` — except a member, who can see what a NOT_FOUND row hides from strangers
 * but may not change it (FORBIDDEN).
 */
export function expectTenancy(result: GraphQLResult<unknown>, who: Who, allowed: Who[], denied: string): void {
  if (allowed.includes(who)) {
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  } else if (who === "nobody") {
    expect(errorCode(result)).toBe("UNAUTHENTICATED");
  } else if (who === "member" && denied === "NOT_FOUND") {
    expect(errorCode(result)).toBe("FORBIDDEN");
  } else {
    expect(errorCode(result)).toBe(denied);
  }
}
