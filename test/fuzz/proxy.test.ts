/**
 * The authenticated proxy, fed hostile paths, methods, queries, headers and bodies with a fixed
 * seed (FUZZ_SEED changes them; FUZZ_RUNS raises the count from 1,500). The provider behind it is
 * a local API that answers everything it receives 200 and records the path: it fails on any 5xx
 * of Switchyard's own (`x-switchyard-error: true`), a request that hangs or breaks the connection,
 * a stack trace in a body, the connection's token in an answer, and any request that reached the
 * provider outside its API base.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { scaled } from "../helpers/timing.ts";
import { insertConnection, raw } from "../proxy/helpers.ts";
import { headerValue, hostileString, pathSegment, sampleOf } from "./values.ts";

const TOTAL = Math.max(1_500, Math.ceil((Number(process.env.FUZZ_RUNS) || 0) / 5));
const SEED = Number(process.env.FUZZ_SEED) || 20261125;
const CONCURRENCY = 8;
const HANG_MS = scaled(5_000);
const TOKEN = "gho_fuzz_token_never_echoed_0123456789";
const BASE_PATH = "/api/v3";

let app: TestApp;
let provider: Server;
let ada: Operator;
const outside: string[] = [];

beforeAll(async () => {
  provider = createServer((req, res) => {
    if (!(req.url ?? "").startsWith(`${BASE_PATH}/`)) outside.push(req.url ?? "");
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
  const apiUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}${BASE_PATH}`;
  app = await startTestApp({ CONNECTOR_GITHUB_API_URL: apiUrl, PROXY_TIMEOUT: "2s", PROXY_MAX_BODY: "65536", RATE_LIMIT_PER_MINUTE: "1000000" });
  ada = await createOperator(app, "Ada");
  await insertConnection(app, { deploymentId: ada.deploymentId, connector: "github", account: "alice", accessToken: TOKEN });
}, 60_000);
afterAll(async () => {
  await app?.close();
  provider?.closeAllConnections();
  await new Promise((resolve) => provider?.close(resolve));
});

const method = fc.constantFrom("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");
const rawSegment = fc.oneof(
  { weight: 4, arbitrary: pathSegment },
  { weight: 1, arbitrary: fc.constantFrom("%2e%2e", "%252e%252e", "..%2f", "%5c", "https:", "%2F%2Fevil.com", "%0d%0aSet-Cookie:x", "~", "@evil.com", "a;b", "%") },
);
const input = fc.record({
  method,
  segments: fc.array(rawSegment, { minLength: 0, maxLength: 5 }),
  query: fc.oneof(fc.constant(""), hostileString.map((s) => `?q=${encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ""))}`), fc.constantFrom("?", "?a=%zz", "?access_token=x")),
  retries: fc.option(fc.constantFrom("0", "1", "5", "6", "-1", "x", ""), { nil: undefined }),
  header: fc.option(headerValue, { nil: undefined }),
  body: fc.option(fc.oneof(hostileString, fc.constant("x".repeat(70_000))), { nil: undefined }),
  account: fc.oneof({ weight: 5, arbitrary: fc.constant("alice") }, { weight: 1, arbitrary: pathSegment }),
});

test(`the proxy under ${TOTAL} hostile requests: no 5xx of its own, nothing outside the API base, no token echoed`, async () => {
  const inputs = sampleOf(input, TOTAL, SEED);
  const failures: string[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < inputs.length) {
        const one = inputs[next++];
        const path = `/api/v1/proxy/github/${one.account}/${one.segments.join("/")}${one.query}`;
        const headers: Record<string, string> = { "x-api-key": ada.apiKey };
        if (one.retries !== undefined) headers["x-switchyard-retries"] = one.retries;
        if (one.header !== undefined) headers["x-fuzz"] = one.header;
        const withBody = one.body !== undefined && one.method !== "GET" && one.method !== "HEAD";
        const answer = await Promise.race([
          raw(`${app.url}${path}`, { method: one.method, headers, body: withBody ? one.body : undefined }).catch((error: Error) => error),
          new Promise<Error>((resolve) => setTimeout(() => resolve(new Error(`no answer within ${HANG_MS} ms`)), HANG_MS)),
        ]);
        if (answer instanceof Error) {
          // A 413 answered before the whole body was read may cut the upload: not a failure of the proxy.
          if (!(withBody && (one.body?.length ?? 0) > 65_536)) failures.push(`${one.method} ${path}: ${answer.message}`);
          continue;
        }
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        const text = answer.body.toString("utf8");
        if (answer.status >= 500 && answer.headers["x-switchyard-error"] === "true") failures.push(`${one.method} ${path}: HTTP ${answer.status} ${text.slice(0, 200)}`);
        if (/\bat .+:\d+:\d+\)?$/m.test(text)) failures.push(`${one.method} ${path}: a stack trace`);
        if (text.includes(TOKEN)) failures.push(`${one.method} ${path}: the token in the answer`);
      }
    }),
  );
  console.log(`proxy fuzz: ${TOTAL} inputs, statuses ${JSON.stringify(statuses)}`);
  expect(outside).toEqual([]);
  expect(failures.slice(0, 20)).toEqual([]);
}, 600_000);
