import { expect, test } from "vitest";
import { sourceFiles } from "./sourceFiles.ts";

/**
 * No module keeps state: what an app remembers (caches, counters, memo maps) lives in the app that
 * built it, so two apps in one process (tests, a worker beside the server) share nothing and one
 * app's cache can never answer for another. A top-level `let`, or a top-level Map / WeakMap / Set,
 * is state unless it is one of the constants below, which are filled once and only read.
 */
const IMMUTABLE_CONSTANTS: Record<string, string[]> = {
  // The OAuth error codes that mean a refresh token is gone for good.
  "oauth/refresh.ts": ["GRANT_GONE"],
  // The parameter names of a GraphQL-over-HTTP request.
  "graphql/plainRequests.ts": ["PARAM_NAMES"],
  // Headers the service sets itself.
  "forwarding/settings.ts": ["RESERVED_HEADERS"],
  // ipaddr.js ranges a forwarding URL may reach.
  "net/ssrf.ts": ["ALLOWED_RANGES"],
  // The declarations by name, and each connector compiled from its (constant) declaration on first use.
  "connectors/registry.ts": ["declared", "byName"],
  // Driver error codes and Prisma error kinds that mean the database is unreachable.
  "db/errors.ts": ["SOCKET_CODES", "UNAVAILABLE_KINDS"],
  // The proxy's fixed header and status lists, and the socket errors it retries.
  "connections/proxy.ts": ["RETRYABLE_STATUS", "HOP_BY_HOP", "NOT_SENT", "CONNECTION_ERRORS"],
  // The methods the proxy serves.
  "rest/proxy.ts": ["METHODS"],
};

const TOP_LEVEL_STATE = /^(?:export\s+)?(?:(let|var)\s+([A-Za-z_$][\w$]*)|const\s+([A-Za-z_$][\w$]*)\s*(?::[^=\n]+)?=\s*new\s+(?:Map|WeakMap|Set|WeakSet)\b)/gm;

test("no module in src/ keeps mutable state at its top level", () => {
  const found: string[] = [];
  for (const file of sourceFiles()) {
    for (const match of file.text.matchAll(TOP_LEVEL_STATE)) {
      const name = match[2] ?? match[3];
      if (!match[1] && IMMUTABLE_CONSTANTS[file.path]?.includes(name)) continue;
      found.push(`src/${file.path}: ${match[0].trim()}`);
    }
  }
  expect(found, "move this state into the capability that owns it (built in app.ts), or list an immutable constant above").toEqual([]);
});

test("every listed constant still exists (the list does not go stale)", () => {
  const files = new Map(sourceFiles().map((file) => [file.path, file.text]));
  const missing = Object.entries(IMMUTABLE_CONSTANTS).flatMap(([path, names]) =>
    names.filter((name) => !new RegExp(`^(?:export\\s+)?const\\s+${name}\\b`, "m").test(files.get(path) ?? "")).map((name) => `src/${path}: ${name}`),
  );
  expect(missing).toEqual([]);
});
