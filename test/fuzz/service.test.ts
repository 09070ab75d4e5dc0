/**
 * The running service, fed hostile input on every surface it exposes, with a fixed seed: the same
 * inputs on every run (FUZZ_SEED changes them, FUZZ_RUNS raises the count above 10,000). It fails
 * on any 5xx, a request that hangs, a broken connection (a crash), a stack trace or file path in a
 * body, or a configured secret echoed back; and prints, per surface, how many inputs were sent and
 * which statuses came back.
 */
import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import { allConnectors, connectorEnvPrefix, connectorNames } from "../../src/connectors/registry.ts";
import { schema } from "../../src/graphql/schema.ts";
import { connectAccount, CookieJar, formIn, getAuthUrl, hop, type PageForm, walkConnectFlow } from "../helpers/connectFlow.ts";
import { type FakeGitHub, type FakeGoogle, type FakeJira, type FakeSlack, startFakeGitHub, startFakeGoogle, startFakeJira, startFakeSlack } from "../helpers/fakeProviders/index.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { secretForScheme, signForScheme } from "../helpers/schemeSigner.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { scaled } from "../helpers/timing.ts";
import { type FuzzOperation, operationsOf } from "./graphqlOperations.ts";
import { cookieHeader, deepJsonText, headerValue, hostileJson, hostileString, pathSegment, sampleOf, unstorableString } from "./values.ts";
import { webhookSigners } from "./webhookSigners.ts";

const connectors = allConnectors();

const TOTAL = Math.max(10_000, Number(process.env.FUZZ_RUNS) || 0);
const SEED = Number(process.env.FUZZ_SEED) || 20261122;
const CONCURRENCY = 12;
const HANG_MS = scaled(5_000);
const PASSWORD = "correct horse battery";

/** Each surface's share of the inputs. */
const SHARE = {
  webhooks: 0.22,
  unstorable: 0.05,
  deep: 0.02,
  apiData: 0.06,
  authUrl: 0.06,
  connect: 0.1,
  console: 0.05,
  cookies: 0.05,
  shapes: 0.05,
  aborted: 0.003,
  graphql: 0.334,
};

interface FuzzRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Text, or bytes as they are (a Buffer may hold what UTF-8 cannot). */
  body?: string | Buffer;
}
interface Totals {
  inputs: number;
  statuses: Record<string, number>;
  seconds?: number;
}
interface Failure {
  surface: string;
  reason: string;
  request: string;
  response?: string;
}

let app: TestApp;
let github: FakeGitHub;
let slack: FakeSlack;
let jira: FakeJira;
let google: FakeGoogle;
let owner: Operator;
let bob: Operator;
const encryptionKey = randomBytes(32).toString("base64");
const headerSecret = `fuzz-header-${randomBytes(12).toString("hex")}`;
let secrets: string[] = [];
const totals: Record<string, Totals> = {};
const failures: Failure[] = [];
/** Known-good values, so that generated inputs also get past validation to the code behind it. */
const known = { ids: [] as string[], strings: [] as string[], tokens: [] as string[], states: [] as { url: string; jar: CookieJar }[], forms: [] as PageForm[] };

beforeAll(async () => {
  [github, slack, jira, google] = await Promise.all([startFakeGitHub(), startFakeSlack(), startFakeJira(), startFakeGoogle()]);
  app = await startTestApp({
    // First: the hand-written fakes' own secrets win for their connectors.
    ...declaredWebhookSecrets(),
    ...github.env(),
    ...slack.env(),
    ...jira.env(),
    ...google.env(),
    ENCRYPTION_KEY: encryptionKey,
    // The fuzzer is one client sending thousands of requests: limits would only hide code from it.
    RATE_LIMIT_PER_MINUTE: "10000000",
    LOGIN_RATE_LIMIT_PER_15_MINUTES: "10000000",
  });
  owner = await createOperator(app, "Fuzz");
  bob = await createOperator(app, "Bob");
  for (const connector of ["github", "slack", "jira"]) {
    await connectAccount(app, owner, { connector, account: "alice", provider: { github, slack, jira }[connector as "github"] });
  }
  const triggers = connectors.flatMap((c) => c.triggers.map((t) => ({ connector: c.name, trigger: t.name })));
  ok(
    await app.gql(
      "mutation($d: ID!, $i: ForwardingSettingsInput!) { saveForwardingSettings(deploymentId: $d, input: $i) { forwardingUrl } }",
      { d: owner.deploymentId, i: { forwardingUrl: "http://127.0.0.1:9/fuzz", headerKey: "X-Fuzz", headerValue: headerSecret, triggers: triggers.slice(0, 1000) } },
      { token: owner.token },
    ),
  );
  const item = ok(await app.gql<{ createDataItem: { id: string } }, unknown>("mutation($d: ID!) { createDataItem(deploymentId: $d, name: \"n\", description: \"d\") { id } }", { d: owner.deploymentId }, { token: owner.token }));
  const test = ok(
    await app.gql<{ sendTestEvent: { id: string; deliveries: { id: string }[] } }, unknown>(
      "mutation($d: ID!) { sendTestEvent(deploymentId: $d, trigger: { connector: \"github\", trigger: \"issue_opened\" }) { id deliveries { id } } }",
      { d: owner.deploymentId },
      { token: owner.token },
    ),
  );
  const accounts = ok(await app.gql<{ deployment: { connectedAccounts: { id: string }[] } }, unknown>("query($d: ID!) { deployment(id: $d) { connectedAccounts { id } } }", { d: owner.deploymentId }, { token: owner.token }));
  known.ids.push(
    owner.deploymentId,
    owner.productionDeploymentId,
    owner.organizationId,
    bob.deploymentId,
    bob.organizationId,
    bob.userId,
    item.createDataItem.id,
    "2147483648",
    test.sendTestEvent.id,
    ...test.sendTestEvent.deliveries.map((d) => d.id),
    ...accounts.deployment.connectedAccounts.map((a) => a.id),
  );
  known.strings.push(...connectorNames, ...connectors.flatMap((c) => c.triggers.map((t) => t.name)), "https://example.com/hook", "someone@example.com", bob.email, "development", "X-Token");

  // Connect links, their pages' forms (valid nonces) and attempts stopped at the provider (real states).
  for (let i = 0; i < 12; i++) {
    const connector = ["github", "slack", "jira", "gmail"][i % 4];
    const authUrl = await getAuthUrl(app, owner.apiKey, connector, `fuzz-${i}`);
    known.tokens.push(new URL(authUrl).pathname.split("/")[2]);
    if (i % 3 === 0) known.forms.push(formIn(await hop("GET", authUrl)));
    if (i % 3 === 1) {
      const walk = await walkConnectFlow(authUrl, { stopAtProvider: true });
      if (walk.providerAuthorizeUrl) known.states.push({ url: walk.providerAuthorizeUrl, jar: walk.jar });
    }
  }
  secrets = [
    encryptionKey,
    headerSecret,
    PASSWORD,
    github.clientSecret,
    github.webhookSecret,
    slack.clientSecret,
    slack.signingSecret,
    jira.clientSecret,
    jira.webhookSecret,
    google.clientSecret,
    google.pushAudience,
  ];
}, scaled(120_000));

/** A webhook secret, in its scheme's form, for every connector whose declared scheme the test can sign. */
function declaredWebhookSecrets(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const def of connectors) {
    const scheme = def.declaration?.webhook?.scheme;
    if (scheme && signForScheme(scheme, "x", "{}", new Date()) !== undefined) env[`${connectorEnvPrefix(def)}WEBHOOK_SECRET`] = secretForScheme(scheme);
  }
  return env;
}

afterAll(async () => {
  await app?.close();
  await Promise.all([github?.close(), slack?.close(), jira?.close(), google?.close()]);
});

// ---------------------------------------------------------------------------------------------
// Sending and judging

const STACK_FRAME = /\n\s*at \S[^\n]*:\d+:\d+|\bat [\w$.<>[\] ]+ \(?(?:file:\/\/)?\/?[\w./-]+\.(?:ts|js|mjs|cjs):\d+/;
const FILE_PATH = /\/work\/|node_modules|\bsrc\/[\w/-]+\.ts\b/;

function describeRequest(request: FuzzRequest): string {
  const text = `${request.method} ${request.path} ${JSON.stringify(request.headers ?? {})} ${JSON.stringify(String(request.body ?? "").slice(0, 600))}`;
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
}

/**
 * Sends one input and judges the answer. A connection that fails is tried once more on a fresh one
 * (a keep-alive socket the server closed while idle fails that way too); failing twice is a crash.
 */
async function send(surface: string, request: FuzzRequest): Promise<{ status: number; text: string } | undefined> {
  const tally = (totals[surface] ??= { inputs: 0, statuses: {} });
  tally.inputs++;
  const fail = (reason: string, response?: string) => failures.push({ surface, reason, request: describeRequest(request), response: response?.slice(0, 600) });
  let answer: { status: number; text: string; contentType: string } | Error = new Error("not sent");
  for (let attempt = 0; attempt < 2 && answer instanceof Error; attempt++) answer = await exchange(request).catch((error: Error) => error);
  if (answer instanceof Error) {
    const hung = answer.name === "TimeoutError";
    tally.statuses[hung ? "hang" : "error"] = (tally.statuses[hung ? "hang" : "error"] ?? 0) + 1;
    fail(hung ? `no answer within ${HANG_MS} ms` : `connection failed: ${answer.message} ${String((answer as { cause?: unknown }).cause ?? "")}`);
    return undefined;
  }
  const { status, text, contentType } = answer;
  tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
  // Without a console build (console/dist), /console says so with a 503 and Retry-After: an
  // installation's state, not a failure of the request.
  const consoleNotBuilt = status === 503 && request.path.startsWith("/console") && (request.method === "HEAD" || text.includes("The console has not been built yet"));
  if (status >= 500 && !consoleNotBuilt) fail(`HTTP ${status}`, text);
  if (text.includes('"INTERNAL_SERVER_ERROR"')) fail("INTERNAL_SERVER_ERROR in the body", text);
  // The console's own scripts are code, not answers: only answers are searched for leaks.
  if (!/javascript|css/.test(contentType)) {
    if (STACK_FRAME.test(text)) fail("a stack trace in the body", text);
    if (FILE_PATH.test(text)) fail("a file path in the body", text);
  }
  for (const secret of secrets) if (text.includes(secret)) fail(`a configured secret (${secret.slice(0, 4)}…) in the body`, text);
  return { status, text };
}

async function exchange(request: FuzzRequest): Promise<{ status: number; text: string; contentType: string }> {
  const response = await fetch(`${app.url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.method === "GET" || request.method === "HEAD" ? undefined : typeof request.body === "string" ? request.body : request.body && new Uint8Array(request.body),
    redirect: "manual",
    signal: AbortSignal.timeout(HANG_MS),
  });
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", text: await response.text() };
}

async function timed(surface: string, work: () => Promise<void>): Promise<void> {
  const started = performance.now();
  await work();
  (totals[surface] ??= { inputs: 0, statuses: {} }).seconds = (performance.now() - started) / 1000;
}

async function runAll<T>(items: T[], work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

const share = (surface: keyof typeof SHARE) => Math.ceil(TOTAL * SHARE[surface]);
const seedOf = (surface: string) => SEED + [...surface].reduce((sum, c) => sum * 31 + c.charCodeAt(0), 0) % 100_000;

// ---------------------------------------------------------------------------------------------
// The surfaces

function webhookRequests(count: number): FuzzRequest[] {
  const signers = webhookSigners({ github, slack, jira, google });
  const names = [...connectorNames, "nope"];
  const arbitrary = fc.record({
    connector: fc.oneof({ weight: 10, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: pathSegment }),
    deployment: fc.oneof({ weight: 10, arbitrary: fc.constant(owner.deploymentId) }, { weight: 1, arbitrary: fc.constant(bob.deploymentId) }, { weight: 2, arbitrary: pathSegment }),
    body: fc.oneof(
      { weight: 6, arbitrary: fc.record({ sample: fc.nat(), mutations: fc.array(fc.tuple(fc.nat(), hostileJson), { minLength: 1, maxLength: 4 }) }) },
      { weight: 2, arbitrary: hostileJson.map((value) => ({ raw: JSON.stringify(value) ?? "null" })) },
      { weight: 1, arbitrary: hostileString.map((raw) => ({ raw })) },
    ),
    signature: fc.constantFrom("valid", "valid", "valid", "valid", "forged", "missing"),
    eventHeaders: fc.nat(),
    extraHeaders: fc.dictionary(fc.constantFrom("x-github-event", "x-github-delivery", "x-atlassian-webhook-identifier", "x-slack-request-timestamp", "content-type", "authorization"), headerValue, { maxKeys: 2 }),
  });
  return sampleOf(arbitrary, count, seedOf("webhooks")).map((input) => {
    const signer = Object.hasOwn(signers, input.connector) ? signers[input.connector] : undefined;
    const samples = signer?.samples ?? connectors.find((c) => c.name === input.connector)?.triggers.map((t) => t.samplePayload) ?? [{}];
    const body = "raw" in input.body ? input.body.raw : JSON.stringify(mutate(samples[input.body.sample % samples.length], input.body.mutations));
    const eventHeaders = signer ? signer.eventHeaders[input.eventHeaders % signer.eventHeaders.length] : {};
    const signature = !signer || input.signature === "missing" ? {} : input.signature === "forged" ? signer.sign(`${body} `) : signer.sign(body);
    return {
      method: "POST",
      path: `/webhooks/${input.deployment}/${input.connector}`,
      headers: { "content-type": "application/json", ...eventHeaders, ...input.extraHeaders, ...signature },
      body,
    };
  });
}

/** A copy of `value` with the values at some of its paths (chosen by index) replaced. */
function mutate(value: unknown, mutations: [number, unknown][]): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  const paths: (string | number)[][] = [];
  // Only nodes of this copy are written into: generated values may be shared constants (writing one
  // into itself ties a knot) or nested deeper than a clone can recurse.
  const own = new Set<object>();
  const walk = (node: unknown, path: (string | number)[]) => {
    paths.push(path);
    if (node && typeof node === "object") {
      own.add(node);
      for (const [key, child] of Object.entries(node)) walk(child, [...path, Array.isArray(node) ? Number(key) : key]);
    }
  };
  walk(copy, []);
  let result: unknown = copy;
  for (const [index, replacement] of mutations) {
    const path = paths[index % paths.length];
    if (path.length === 0) {
      result = replacement;
      continue;
    }
    let parent = result as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) parent = (parent?.[key] ?? undefined) as Record<string | number, unknown>;
    if (parent && typeof parent === "object" && own.has(parent)) parent[path[path.length - 1]] = replacement;
  }
  return result;
}

/** A signer of one connector's deliveries, as its provider signs them. */
interface AnySigner {
  connector: string;
  /** Headers that make `body` verify at `url`; undefined when this scheme cannot sign raw bytes. */
  sign(body: string | Buffer, url: string): Record<string, string> | undefined;
  eventHeaders: Array<Record<string, string>>;
  samples: unknown[];
}

/** The four hand-written signers (which sign any bytes) and every declared scheme the test can sign (text only). */
function allSigners(): AnySigner[] {
  const coded = Object.entries(webhookSigners({ github, slack, jira, google })).map(([connector, signer]): AnySigner => ({ connector, sign: (body) => signer.sign(body), eventHeaders: signer.eventHeaders, samples: signer.samples }));
  const declared = connectors.flatMap((def): AnySigner[] => {
    const webhook = def.declaration?.webhook;
    if (!webhook || coded.some((c) => c.connector === def.name) || signForScheme(webhook.scheme, "x", "{}", new Date()) === undefined) return [];
    const secret = secretForScheme(webhook.scheme);
    const header = webhook.event?.header;
    return [
      {
        connector: def.name,
        sign: (body, url) => (typeof body === "string" ? signForScheme(webhook.scheme, secret, body, new Date(), url) : undefined),
        eventHeaders: header ? def.triggers.map((t) => ({ [header]: t.providerEvent.split(".")[0] })) : [{}],
        samples: def.triggers.map((t) => t.samplePayload),
      },
    ];
  });
  return [...coded, ...declared];
}

/** `{"<key>": <inner>, …the sample's own fields}` as text (the inner value may be too deep to stringify). */
function besideSample(sample: unknown, key: string, inner: string): string {
  const text = JSON.stringify(sample);
  if (!text.startsWith("{")) return `{${JSON.stringify(key)}:${inner}}`;
  return text === "{}" ? `{${JSON.stringify(key)}:${inner}}` : `{${JSON.stringify(key)}:${inner},${text.slice(1)}`;
}

function signedRequest(signer: AnySigner, eventHeaders: number, body: string | Buffer): FuzzRequest {
  const path = `/webhooks/${owner.deploymentId}/${signer.connector}`;
  return {
    method: "POST",
    path,
    headers: { "content-type": "application/json", ...signer.eventHeaders[eventHeaders % signer.eventHeaders.length], ...signer.sign(body, `${app.url}${path}`) },
    body,
  };
}

/** Correctly signed bodies nested 100–10,000 levels deep, alone or beside a real payload's fields. */
function deepRequests(count: number): FuzzRequest[] {
  const signers = allSigners();
  const arbitrary = fc.record({
    signer: fc.nat(),
    sample: fc.nat(),
    eventHeaders: fc.nat(),
    depth: fc.oneof(fc.integer({ min: 100, max: 1000 }), fc.integer({ min: 1000, max: 10_000 }), fc.constantFrom(100, 127, 128, 129, 255, 256, 257, 1000, 5000, 10_000)),
    kind: fc.constantFrom<"object" | "array" | "mixed">("object", "array", "mixed"),
    where: fc.constantFrom("root", "beside", "beside"),
  });
  return sampleOf(arbitrary, count, seedOf("deep")).map((input) => {
    const signer = signers[input.signer % signers.length];
    const deep = deepJsonText(input.depth, input.kind, JSON.stringify("bottom\u0000\ud800"));
    const body = input.where === "root" ? deep : besideSample(signer.samples[input.sample % signer.samples.length] ?? {}, "deep", deep);
    return signedRequest(signer, input.eventHeaders, body);
  });
}

/** Bytes UTF-8 cannot hold, as they arrive on the wire: a surrogate's CESU-8 bytes, overlong NUL, stray bytes. */
const BAD_BYTES = [Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xed, 0xbf, 0xbf]), Buffer.from([0xc0, 0x80]), Buffer.from([0xff]), Buffer.from([0x00]), Buffer.from([0xf0, 0x9f, 0x98])];

/**
 * Correctly signed deliveries carrying NUL and lone surrogates: as JSON escapes in values and keys
 * of a real payload (every signer), and as raw bytes inside a string (the signers that sign bytes).
 * Gmail's push carries its own JSON in base64: that inner JSON gets them too.
 */
function unstorableRequests(count: number): FuzzRequest[] {
  const signers = allSigners();
  const arbitrary = fc.record({
    signer: fc.nat(),
    sample: fc.nat(),
    eventHeaders: fc.nat(),
    mutations: fc.array(fc.tuple(fc.nat(), unstorableString), { minLength: 1, maxLength: 5 }),
    keys: fc.dictionary(unstorableString, unstorableString, { maxKeys: 2 }),
    raw: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...BAD_BYTES.keys()), fc.string({ maxLength: 8 })) }),
  });
  return sampleOf(arbitrary, count, seedOf("unstorable")).map((input) => {
    const signer = signers[input.signer % signers.length];
    let sample = mutate(signer.samples[input.sample % signer.samples.length] ?? {}, input.mutations);
    if (sample && typeof sample === "object" && !Array.isArray(sample)) sample = { ...input.keys, ...sample };
    if (signer.connector === "gmail") {
      const inner = mutate({ emailAddress: "nobody@example.com", historyId: 4242 }, input.mutations);
      sample = { message: { data: Buffer.from(JSON.stringify(inner)).toString("base64"), messageId: "1" }, subscription: "projects/x/subscriptions/y" };
    }
    const text = JSON.stringify(sample) ?? "null";
    if (input.raw && signer.sign(Buffer.alloc(0), "") !== undefined) {
      const [bad, around] = input.raw;
      const body = Buffer.concat([Buffer.from(`{"raw":${JSON.stringify(around).slice(0, -1)}`), BAD_BYTES[bad], Buffer.from(text.startsWith("{") && text !== "{}" ? `",${text.slice(1)}` : '"}')]);
      return signedRequest(signer, input.eventHeaders, body);
    }
    return signedRequest(signer, input.eventHeaders, text);
  });
}

function queryString(pairs: [string, string][]): string {
  return pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join("&")}` : "";
}

const queryValue = fc.oneof({ weight: 3, arbitrary: hostileString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ""))) }, { weight: 1, arbitrary: fc.constantFrom("%00", "%zz", "1", "0", "-1", "100", "101", "true", "1e2", "0x10", "") });

function apiKeyHeader(): fc.Arbitrary<Record<string, string>> {
  return fc.oneof({ weight: 6, arbitrary: fc.constant({ "x-api-key": owner.apiKey }) }, { weight: 1, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: headerValue.map((v) => ({ "x-api-key": v })) });
}

function apiDataRequests(count: number): FuzzRequest[] {
  const arbitrary = fc.record({
    pairs: fc.array(fc.tuple(fc.oneof(fc.constantFrom("offset", "limit", "envelope"), queryValue), queryValue), { maxLength: 4 }),
    headers: apiKeyHeader(),
    method: fc.constantFrom("GET", "GET", "GET", "HEAD", "POST", "DELETE"),
  });
  return sampleOf(arbitrary, count, seedOf("apiData")).map((input) => ({ method: input.method, path: `/api/data${queryString(input.pairs)}`, headers: input.headers }));
}

function authUrlRequests(count: number): FuzzRequest[] {
  const arbitrary = fc.record({
    connector: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...connectorNames) }, { weight: 1, arbitrary: pathSegment }),
    pairs: fc.array(fc.tuple(fc.constantFrom("account", "account", "account", "redirect", "%00"), queryValue), { maxLength: 3 }),
    headers: fc.tuple(apiKeyHeader(), fc.constantFrom<Record<string, string>>({}, { "content-type": "application/json" }, { "content-type": "text/plain" })).map(([a, b]) => ({ ...a, ...b })),
  });
  return sampleOf(arbitrary, count, seedOf("authUrl")).map((input) => ({ method: "GET", path: `/api/v1/connector/service/${input.connector}/auth-url${queryString(input.pairs)}`, headers: input.headers }));
}

function connectRequests(count: number): FuzzRequest[] {
  const token = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known.tokens) }, { weight: 2, arbitrary: pathSegment });
  const formBody = fc.dictionary(fc.constantFrom("nonce", "decision", "x"), fc.oneof(hostileString, fc.constantFrom("continue", "cancel")), { maxKeys: 3 }).map((f) => new URLSearchParams(f).toString());
  const contentType = fc.constantFrom("application/x-www-form-urlencoded", "application/x-www-form-urlencoded; charset=utf-8", "application/json", "multipart/form-data; boundary=x", "text/plain", "");
  const page: fc.Arbitrary<FuzzRequest> = fc
    .record({ token, consent: fc.boolean(), method: fc.constantFrom("GET", "POST", "HEAD", "PUT"), body: formBody, type: contentType, origin: fc.oneof(fc.constant(undefined), fc.constant(app.url), fc.constant("null"), headerValue) })
    .map((r) => ({
      method: r.method,
      path: `/connect/${r.token}${r.consent ? "/consent" : ""}`,
      headers: { ...(r.type ? { "content-type": r.type } : {}), ...(r.origin !== undefined ? { origin: r.origin } : {}) },
      body: r.body,
    }));
  const validForm: fc.Arbitrary<FuzzRequest> = fc
    .record({ form: fc.constantFrom(...known.forms), extra: fc.dictionary(fc.constantFrom("decision", "x", "nonce"), hostileString, { maxKeys: 2 }) })
    .map(({ form, extra }) => ({ method: "POST", path: new URL(form.action).pathname, headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ ...form.fields, ...extra }).toString() }));
  const callback: fc.Arbitrary<FuzzRequest> = fc
    .record({
      state: fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...known.states).map((s) => encodeURIComponent(new URL(s.url).searchParams.get("state")!)) }, { weight: 3, arbitrary: queryValue }),
      extra: fc.array(fc.tuple(fc.constantFrom("code", "error", "error_description", "iss", "state"), queryValue), { maxLength: 3 }),
      cookie: fc.oneof(fc.constant(undefined), fc.constantFrom(...known.states).map((s) => s.jar.header(`${app.url}/oauth/callback`)), headerValue.map((v) => `sy_connect_x=${v}`)),
    })
    .map((r): FuzzRequest => ({ method: "GET", path: `/oauth/callback${queryString([["state", r.state], ...r.extra])}`, headers: r.cookie ? { cookie: r.cookie } : {} }));
  return sampleOf(fc.oneof({ weight: 4, arbitrary: page }, { weight: 1, arbitrary: validForm }, { weight: 4, arbitrary: callback }), count, seedOf("connect"));
}

function consoleRequests(count: number): FuzzRequest[] {
  const arbitrary = fc.record({
    root: fc.constantFrom("/console", "/console/", "/console/assets/", "/", "/graphql/", "/metrics/", "/webhooks/", "/oauth/"),
    segments: fc.array(pathSegment, { maxLength: 3 }),
    method: fc.constantFrom("GET", "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"),
    type: fc.constantFrom(undefined, "application/json", "text/html", "application/x-www-form-urlencoded", "multipart/form-data", "application/octet-stream"),
    accept: fc.constantFrom(undefined, "text/html", "application/json", "*/*", "text/event-stream"),
    body: hostileString,
  });
  return sampleOf(arbitrary, count, seedOf("console")).map((r) => ({
    method: r.method,
    path: `${r.root}${r.segments.join("/")}`,
    headers: { ...(r.type ? { "content-type": r.type } : {}), ...(r.accept ? { accept: r.accept } : {}) },
    body: r.body,
  }));
}

/** Lone surrogates replaced by U+FFFD (which the query string then carries as a surrogate's raw bytes). */
const wellFormed = (text: string) => text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");

/** Values that are not an object where GraphQL over HTTP wants one (or a string). */
const notAnObject = fc.constantFrom<unknown>([], [1], [{}], [{ d: "x" }], 0, -1, 1.5, 1e309, true, false, "", "{}", '{"d":"x"}', "[]", "null", null, "\u0000", "\ud800");

/** GraphQL requests whose envelope is wrong: `variables` or `extensions` not an object, `query` not a string, the body not an object. */
function shapeRequests(count: number): FuzzRequest[] {
  const queries = ["{ __typename }", "{ viewer { id } }", "query Q($d: ID!) { deployment(id: $d) { id } }", "query Q($d: ID) { deployment(id: $d) { id } }", "query($n: Int) { __typename }"];
  const field = (wanted: fc.Arbitrary<unknown>) => fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: wanted }, { weight: 6, arbitrary: notAnObject }, { weight: 1, arbitrary: hostileJson });
  const arbitrary = fc.record({
    query: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...queries) }, { weight: 3, arbitrary: notAnObject.filter((v) => typeof v !== "string") }, { weight: 1, arbitrary: hostileJson }),
    variables: field(fc.constant({ d: owner.deploymentId })),
    extensions: field(fc.constantFrom({}, { persistedQuery: { version: 1, sha256Hash: "x" } })),
    operationName: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom("Q", null, 1, [], {}) }),
    envelope: fc.constantFrom("object", "object", "object", "object", "batch", "bare", "get"),
    caller: fc.constantFrom("bearer", "cookie", "none"),
  });
  return sampleOf(arbitrary, count, seedOf("shapes")).map((input) => {
    const fields = { query: input.query, variables: input.variables, extensions: input.extensions, operationName: input.operationName };
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (input.caller === "bearer") headers.authorization = `Bearer ${owner.token}`;
    if (input.caller === "cookie") headers.cookie = `sy_session=${owner.token}`;
    if (input.envelope === "get") {
      const params = Object.entries(fields)
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => `${key}=${encodeURIComponent(wellFormed(typeof value === "string" ? value : (JSON.stringify(value) ?? ""))).replaceAll("%EF%BF%BD", "%ED%A0%80")}`);
      return { method: "GET", path: `/graphql?${params.join("&")}`, headers: { ...headers, accept: "application/json" } };
    }
    const body = input.envelope === "batch" ? [fields, fields] : input.envelope === "bare" ? fields.variables ?? fields.query : fields;
    return { method: "POST", path: "/graphql", headers, body: JSON.stringify(body) ?? "" };
  });
}

/** Malformed and oversized `Cookie` headers on every page and endpoint that reads cookies. */
function cookieRequests(count: number): FuzzRequest[] {
  const targets: FuzzRequest[] = [
    { method: "POST", path: "/graphql", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "{ viewer { id } }" }) },
    { method: "POST", path: "/graphql", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "query($d: ID!) { deployment(id: $d) { id } }", variables: { d: owner.deploymentId } }) },
    { method: "GET", path: "/graphql?query=%7B%20viewer%20%7B%20id%20%7D%20%7D", headers: { accept: "application/json" } },
    { method: "GET", path: "/console" },
    { method: "GET", path: `/connect/${known.tokens[0]}` },
    { method: "POST", path: `/connect/${known.tokens[3]}`, headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(known.forms[0]?.fields ?? {}).toString() },
    ...known.states.slice(0, 2).map((s): FuzzRequest => ({ method: "GET", path: `/oauth/callback?state=${encodeURIComponent(new URL(s.url).searchParams.get("state")!)}&code=x` })),
    { method: "GET", path: "/api/data", headers: { "x-api-key": owner.apiKey } },
    { method: "GET", path: "/healthz" },
  ];
  const arbitrary = fc.record({ target: fc.nat(), cookie: cookieHeader(owner.token), second: fc.option(cookieHeader(owner.token), { freq: 5 }) });
  return sampleOf(arbitrary, count, seedOf("cookies")).map(({ target, cookie, second }) => {
    const request = targets[target % targets.length];
    // Two Cookie headers arrive joined with "; " (fetch joins them the same way).
    return { ...request, headers: { ...request.headers, cookie: second ? `${cookie}; ${second}` : cookie } };
  });
}

/** A metric's value summed over every series whose labels match. */
async function metricSum(name: string, labels: (labels: string) => boolean): Promise<number> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  let sum = 0;
  for (const row of text.split("\n")) {
    const match = new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`).exec(row);
    if (match && labels(match[1] ?? "")) sum += Number(match[2]);
  }
  return sum;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Uploads abandoned midway: the headers with a Content-Length, part of the body, then the socket
 * destroyed once the service is reading it (or it has answered without reading). Each counts as
 * 499 in /metrics, never as a 5xx; the service keeps answering.
 */
async function abortedUploads(count: number): Promise<void> {
  const surface = "aborted uploads";
  const tally = (totals[surface] ??= { inputs: 0, statuses: {} });
  const signer = webhookSigners({ github, slack, jira, google }).github;
  const targets: { path: string; headers: Record<string, string>; part: string }[] = [
    { path: "/graphql", headers: { "content-type": "application/json" }, part: '{"query":"{ viewer' },
    { path: "/graphql", headers: { "content-type": "application/json", authorization: `Bearer ${owner.token}` }, part: "[" },
    { path: `/webhooks/${owner.deploymentId}/github`, headers: { "content-type": "application/json", "x-github-event": "issues", ...signer.sign("{}") }, part: '{"action":"opened","issue":{"title":"\\u0000' },
    { path: `/webhooks/${owner.deploymentId}/slack`, headers: { "content-type": "application/json", ...webhookSigners({ github, slack, jira, google }).slack.sign("{}") }, part: "{" },
    { path: `/connect/${known.tokens[0]}`, headers: { "content-type": "application/x-www-form-urlencoded" }, part: "nonce=" },
    { path: "/graphql", headers: { "content-type": "multipart/form-data; boundary=x" }, part: "--x\r\nContent-Disposition: form-data; name=\"operations\"\r\n\r\n{" },
  ];
  const abortedSoFar = () => metricSum("switchyard_http_requests_total", (labels) => labels.includes('status="499"'));
  const waitFor = async (done: () => Promise<boolean>) => {
    const started = performance.now();
    while (!(await done())) {
      if (performance.now() - started > HANG_MS) return false;
      await pause(5);
    }
    return true;
  };
  for (let i = 0; i < count; i++) {
    tally.inputs++;
    const target = targets[i % targets.length];
    const declared = 200 + ((i * 7919) % 8_000);
    const before = await abortedSoFar();
    const request = httpRequest(`${app.url}${target.path}`, { method: "POST", agent: false, headers: { ...target.headers, "content-length": String(declared) } });
    let answered: number | undefined;
    request.on("response", (res) => {
      answered = res.statusCode;
      res.resume();
    });
    request.on("error", () => {});
    request.flushHeaders();
    request.write(target.part.slice(0, 1 + (i % target.part.length)));
    // Destroyed while the service reads the body; a route that answers without reading it has answered.
    const reading = await waitFor(async () => answered !== undefined || (await metricSum("switchyard_http_bodies_in_flight", () => true)) >= 1);
    request.destroy();
    let outcome: string;
    if (answered !== undefined) outcome = String(answered);
    else if (!reading) outcome = "hang";
    else outcome = (await waitFor(async () => (await abortedSoFar()) > before)) ? "499" : "not counted";
    // The next upload starts once this one is no longer being read.
    await waitFor(async () => (await metricSum("switchyard_http_bodies_in_flight", () => true)) === 0);
    tally.statuses[outcome] = (tally.statuses[outcome] ?? 0) + 1;
    if (outcome === "hang") failures.push({ surface, reason: "the upload was neither read nor answered", request: `POST ${target.path}` });
    if (outcome === "not counted") failures.push({ surface, reason: "an abandoned upload not counted as 499", request: `POST ${target.path}` });
    if (answered !== undefined && answered >= 500) failures.push({ surface, reason: `HTTP ${answered}`, request: `POST ${target.path} (abandoned)` });
  }
  const fresh = await send(surface, { method: "POST", path: "/graphql", headers: { "content-type": "application/json" }, body: '{"query":"{ __typename }"}' });
  if (fresh?.status !== 200) failures.push({ surface, reason: `after the abandoned uploads, a plain query answered ${fresh?.status}`, request: "{ __typename }" });
}

// ---------------------------------------------------------------------------------------------
// GraphQL: every root field, as an owner (bearer session), as an API key and anonymously

type Caller = "owner" | "apiKey" | "anonymous";
const credentials = { ownerToken: "", apiKey: "" };
let refreshing: Promise<void> | undefined;

/** A fuzzed mutation may end the caller's session (logOut) or replace its key: get new ones, once at a time. */
function refresh(caller: Caller): Promise<void> {
  refreshing ??= (async () => {
    try {
      const login = await app.gql<{ logIn: { token: string } }, unknown>("mutation($e: String!, $p: String!) { logIn(email: $e, password: $p) { token } }", { e: owner.email, p: PASSWORD });
      if (login.data?.logIn) credentials.ownerToken = login.data.logIn.token;
      if (caller === "apiKey") {
        const key = await app.gql<{ generateApiKey: { apiKey: string } }, unknown>("mutation($d: ID!) { generateApiKey(deploymentId: $d) { apiKey } }", { d: owner.deploymentId }, { token: credentials.ownerToken });
        if (key.data?.generateApiKey) credentials.apiKey = key.data.generateApiKey.apiKey;
      }
    } finally {
      refreshing = undefined;
    }
  })();
  return refreshing;
}

function graphqlRequests(count: number, operations: FuzzOperation[]): { caller: Caller; operation: FuzzOperation; variables: Record<string, unknown> }[] {
  const callers: Caller[] = ["owner", "apiKey", "anonymous"];
  const perOperation = Math.max(3, Math.ceil(count / operations.length));
  return operations.flatMap((operation, index) =>
    sampleOf(operation.variables, perOperation, seedOf(`graphql:${operation.name}`)).map((variables, i) => ({ caller: callers[(i + index) % 3], operation, variables })),
  );
}

async function sendGraphQL(input: { caller: Caller; operation: FuzzOperation; variables: Record<string, unknown> }): Promise<void> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (input.caller === "owner") headers.authorization = `Bearer ${credentials.ownerToken}`;
  if (input.caller === "apiKey") headers["x-api-key"] = credentials.apiKey;
  const answer = await send("graphql", { method: "POST", path: "/graphql", headers, body: JSON.stringify({ query: input.operation.query, variables: input.variables }) });
  const graphqlTally = (totals[`graphql ${input.operation.kind} ${input.operation.name}`] ??= { inputs: 0, statuses: {} });
  graphqlTally.inputs++;
  if (!answer) return;
  let result: { errors?: { extensions?: { code?: string } }[] } = {};
  try {
    result = JSON.parse(answer.text);
  } catch {
    failures.push({ surface: "graphql", reason: "a GraphQL answer that is not JSON", request: input.operation.query, response: answer.text.slice(0, 300) });
    return;
  }
  const codes = (result.errors ?? []).map((e) => e.extensions?.code ?? "NO_CODE");
  for (const code of codes.length ? codes : ["OK"]) graphqlTally.statuses[code] = (graphqlTally.statuses[code] ?? 0) + 1;
  if (codes.includes("INTERNAL_SERVER_ERROR")) {
    failures.push({ surface: "graphql", reason: "INTERNAL_SERVER_ERROR", request: `${input.operation.query} ${JSON.stringify(input.variables).slice(0, 400)}`, response: answer.text.slice(0, 300) });
  }
  if (input.caller !== "anonymous" && codes.includes("UNAUTHENTICATED")) await refresh(input.caller);
}

// ---------------------------------------------------------------------------------------------

test(`${TOTAL.toLocaleString("en")} hostile inputs (seed ${SEED}) on every surface: no 5xx, no hang, no crash, no stack trace, no secret`, async () => {
  credentials.ownerToken = owner.token;
  credentials.apiKey = owner.apiKey;
  const started = performance.now();
  // Webhooks first: a fuzzed setConnectorCredentials may later change the deployment's webhook secret.
  await timed("webhooks", () => runAll(webhookRequests(share("webhooks")), (r) => send("webhooks", r)));
  await timed("signed webhooks with NUL and surrogates", () => runAll(unstorableRequests(share("unstorable")), (r) => send("signed webhooks with NUL and surrogates", r)));
  await timed("signed webhooks nested deep", () => runAll(deepRequests(share("deep")), (r) => send("signed webhooks nested deep", r)));
  // Alone: it watches the bodies-in-flight gauge.
  await timed("aborted uploads", () => abortedUploads(share("aborted")));
  await timed("/api/data", () => runAll(apiDataRequests(share("apiData")), (r) => send("/api/data", r)));
  await timed("auth-url", () => runAll(authUrlRequests(share("authUrl")), (r) => send("auth-url", r)));
  await timed("connect pages and /oauth/callback", () => runAll(connectRequests(share("connect")), (r) => send("connect pages and /oauth/callback", r)));
  await timed("/console and other paths", () => runAll(consoleRequests(share("console")), (r) => send("/console and other paths", r)));
  await timed("Cookie headers", () => runAll(cookieRequests(share("cookies")), (r) => send("Cookie headers", r)));
  await timed("GraphQL envelopes", () => runAll(shapeRequests(share("shapes")), (r) => send("GraphQL envelopes", r)));
  const operations = operationsOf(schema, known);
  const sentSoFar = Object.values(totals).reduce((sum, t) => sum + t.inputs, 0);
  await timed("graphql", () => runAll(graphqlRequests(TOTAL - sentSoFar, operations), sendGraphQL));
  const seconds = (performance.now() - started) / 1000;

  const health = await fetch(`${app.url}/healthz`);
  expect(health.status, "the service still answers after the fuzzing").toBe(200);
  // What the service itself counted: no 5xx of its own, even for requests no client waited for.
  const serverErrors = await (await fetch(`${app.url}/metrics`)).text().then((text) => text.split("\n").filter((row) => /^switchyard_http_requests_total\{.*status="5\d\d"/.test(row)));
  // Without a console build, /console answers 503 "not built yet" (see send): an installation's state.
  expect(serverErrors.filter((row) => !row.includes('route="/console/*",status="503"')), "5xx the service counted").toEqual([]);

  const surfaces = Object.entries(totals).filter(([name]) => !name.startsWith("graphql "));
  const sent = surfaces.reduce((sum, [, t]) => sum + t.inputs, 0);
  const lines = [
    `fuzz (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "PGlite"}, seed ${SEED}): ${sent} inputs in ${seconds.toFixed(1)} s, ${failures.length} failures`,
    ...surfaces.map(([name, t]) => `  ${name.padEnd(36)} ${String(t.inputs).padStart(6)} in ${(t.seconds ?? 0).toFixed(1).padStart(5)} s  ${JSON.stringify(t.statuses)}`),
    `  GraphQL operations covered: ${operations.length}; answers by extensions.code:`,
    ...operations.map((o) => `    ${`${o.kind} ${o.name}`.padEnd(42)} ${JSON.stringify(totals[`graphql ${o.kind} ${o.name}`]?.statuses ?? {})}`),
  ];
  const reasons = new Map<string, Failure>();
  for (const failure of failures) if (!reasons.has(`${failure.surface}: ${failure.reason}`)) reasons.set(`${failure.surface}: ${failure.reason}`, failure);
  console.log([...lines, ...[...reasons].map(([reason, first]) => `  FAILED ${reason}, first on: ${first.request.slice(0, 300)}`)].join("\n"));
  expect(failures.slice(0, 25), `${failures.length} failures; the first ones`).toEqual([]);
  expect(sent).toBeGreaterThanOrEqual(10_000);
  for (const operation of operations) expect(totals[`graphql ${operation.kind} ${operation.name}`]?.inputs, operation.name).toBeGreaterThan(0);
}, scaled(300_000));
