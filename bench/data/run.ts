/**
 * The data-listing benchmark (issue 2): GET /api/data and the GraphQL dataItems page over 100,000
 * items of one deployment on PostgreSQL, against a raw node:http + pg baseline in the same run.
 *
 *   npm run bench:data                       # 3 rounds, 50 connections, 2 s warm-up + 10 s each
 *   npm run bench:data -- --rounds 1 --duration 5
 *
 * It creates and drops its own database (sy_bench_<random>) on BENCH_DATABASE_URL (default
 * postgresql://postgres@127.0.0.1:5432/postgres). Every configuration of a round runs back-to-back
 * (every other round in reverse order), so the ratios compare runs made under the same machine load;
 * the figures reported are the medians over the rounds. Exits non-zero only when a request failed (errors, timeouts, non-2xx),
 * never because a target was missed.
 */
import { fork, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { benchDatabase } from "../database.ts";
import { createBenchOperator } from "../operator.ts";

const here = dirname(fileURLToPath(import.meta.url));

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "50" },
    items: { type: "string", default: "100000" },
    out: { type: "string", default: join(here, "results.json") },
    /** Runs only the configurations whose name contains this text (while investigating). */
    only: { type: "string" },
    /** Extra node flags for the service's process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof". */
    "service-flags": { type: "string", default: "" },
  },
});
const ROUNDS = Number(args.rounds);
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
const CONNECTIONS = Number(args.connections);
const ITEMS = Number(args.items);
const SMALL_ITEMS = 50;
const POOL_SIZE = 10; // the service's default pool (src/db/database.ts); the baseline gets the same
const DEEP_OFFSET = ITEMS - 10;
const CONSOLE_ACCEPT = "application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed";

const benchDb = benchDatabase();

const children: ChildProcess[] = [];

/** The child's CPU time so far (user + system), in microseconds. */
function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once("message", (message: { cpu: NodeJS.CpuUsage }) => resolve(message.cpu.user + message.cpu.system));
    child.send("cpu");
  });
}

/** Runs `work` on a connection to the benchmark's database. */
async function onBenchDb<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: benchDb.url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Forks a TypeScript child (through tsx) and waits for the port it reports. */
function start(file: string, env: Record<string, string>, flags: string[] = []): Promise<{ port: number; child: ChildProcess }> {
  const child = fork(join(here, file), [], {
    execArgv: ["--import", "tsx", ...flags],
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once("message", (message: { port: number }) => resolve({ port: message.port, child }));
    child.once("exit", (code) => reject(new Error(`${file} exited with code ${code} before listening`)));
  });
}

/** Items are appended with dense positions 1..N in id order and the counter set to N (see src/data/dataItems.ts). */
async function seed(client: pg.Client, deploymentId: string, count: number) {
  await client.query("begin");
  await client.query("select 1 from deployment where id = $1 for update", [deploymentId]);
  await client.query(
    `insert into data_item (deployment_id, position, name, description, updated_at)
     select $1, g, 'Item ' || g, 'The item numbered ' || g || ', seeded for the benchmark', now()
       from generate_series(1, $2::int) g order by g`,
    [deploymentId, count],
  );
  // nextval() follows the insert order, but make the invariant true by construction rather than by hope.
  await client.query(
    `update data_item i set position = r.n
       from (select id, row_number() over (order by id) as n from data_item where deployment_id = $1) r
      where i.id = r.id and i.position <> r.n`,
    [deploymentId],
  );
  await client.query("update deployment set data_item_count = (select count(*) from data_item where deployment_id = $1) where id = $1", [
    deploymentId,
  ]);
  await client.query("commit");
}

interface Target {
  name: string;
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** The process serving it, for its CPU time. */
  server: ChildProcess;
  /** Checks one response before the load starts: a fast wrong answer is not a result. */
  check(status: number, headers: Headers, body: string): void;
}

interface Measured {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  loadBefore: number;
  /** The server process's CPU time per request, in ms. */
  cpuMsPerRequest: number;
}

async function measure(target: Target): Promise<Measured> {
  const options = {
    url: target.url,
    method: target.method ?? "GET",
    headers: target.headers,
    body: target.body,
    connections: CONNECTIONS,
  };
  if (WARMUP > 0) await autocannon({ ...options, duration: WARMUP });
  const loadBefore = loadavg()[0];
  const cpuBefore = await cpuOf(target.server);
  const result = await autocannon({ ...options, duration: DURATION });
  const cpu = (await cpuOf(target.server)) - cpuBefore;
  return {
    name: target.name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    loadBefore,
    cpuMsPerRequest: cpu / 1000 / Math.max(1, result.requests.total),
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

function table(rows: Measured[]): string {
  const header = ["configuration", "req/s", "p50 ms", "p99 ms", "errors", "non-2xx", "server CPU ms/req"];
  const lines = rows.map((r) => [
    r.name,
    r.requestsPerSecond.toFixed(0),
    String(r.p50),
    String(r.p99),
    String(r.errors + r.timeouts),
    String(r.non2xx),
    r.cpuMsPerRequest.toFixed(3),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [format(header), format(widths.map((w) => "-".repeat(w))), ...lines.map(format)].join("\n");
}

async function main() {
  console.log(`Creating ${benchDb.name} …`);
  await benchDb.create();
  try {
    const { port: servicePort, child: serviceProcess } = await start("service.ts", {
      NODE_ENV: "production",
      DATABASE_URL: benchDb.url,
      PORT: "0",
      PUBLIC_URL: "http://127.0.0.1",
      LOG_LEVEL: "warn",
      ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      RATE_LIMIT_PER_MINUTE: "1000000000",
    }, args["service-flags"].split(" ").filter(Boolean));
    const { port: baselinePort, child: baselineProcess } = await start("baseline.ts", { DATABASE_URL: benchDb.url, POOL_SIZE: String(POOL_SIZE) });
    const service = `http://127.0.0.1:${servicePort}`;
    const baseline = `http://127.0.0.1:${baselinePort}`;

    // An operator through the real service: sign up, organization (development + production), a key.
    const operator = await createBenchOperator(service);
    const big = operator.production;
    const small = operator.development;
    const apiKey = await operator.apiKey(big);

    console.log(`Seeding ${ITEMS} items (and ${SMALL_ITEMS} in a second deployment) …`);
    await onBenchDb(async (client) => {
      await seed(client, big, ITEMS);
      await seed(client, small, SMALL_ITEMS);
      await client.query("vacuum analyze data_item");
      await client.query("vacuum analyze deployment");
      await client.query("vacuum analyze api_key");
    });

    const ids = await onBenchDb(async (client) => {
      const { rows } = await client.query<{ id: number }>("select id from data_item where deployment_id = $1 order by id", [big]);
      return rows.map((r) => r.id);
    });
    const expectIds = (body: unknown[], offset: number) => {
      const got = (body as { id: number | string }[]).map((item) => Number(item.id));
      const want = ids.slice(offset, offset + 10);
      if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`wrong page at ${offset}: ${JSON.stringify(got)}`);
    };
    const expectStatus = (status: number) => {
      if (status !== 200) throw new Error(`status ${status}`);
    };

    const pageQuery =
      "query Page($id: ID!, $offset: Int, $limit: Int) { deployment(id: $id) { dataItems(offset: $offset, limit: $limit) { totalCount nodes { id name description } } } }";
    const checkGraphQL = (status: number, _headers: Headers, body: string) => {
      expectStatus(status);
      const result = JSON.parse(body) as { data?: { deployment: { dataItems: { totalCount: number; nodes: unknown[] } } }; errors?: unknown };
      if (!result.data || result.errors) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
      if (result.data.deployment.dataItems.totalCount !== ITEMS) throw new Error("wrong totalCount");
      expectIds(result.data.deployment.dataItems.nodes, 0);
    };
    const checkRest = (offset: number) => (status: number, headers: Headers, body: string) => {
      expectStatus(status);
      if (headers.get("x-total-count") !== String(ITEMS)) throw new Error(`X-Total-Count ${headers.get("x-total-count")}`);
      expectIds(JSON.parse(body), offset);
    };
    const checkRaw = (offset: number) => (status: number, _headers: Headers, body: string) => {
      expectStatus(status);
      expectIds(JSON.parse(body), offset);
    };
    const variables = { id: big, offset: 0, limit: 10 };

    const allTargets: Target[] = [
      { name: "raw first page", server: baselineProcess, url: `${baseline}/?deployment=${big}&offset=0&limit=10`, check: checkRaw(0) },
      { name: "raw deep page", server: baselineProcess, url: `${baseline}/?deployment=${big}&offset=${DEEP_OFFSET}&limit=10`, check: checkRaw(DEEP_OFFSET) },
      { name: "REST first page", server: serviceProcess, url: `${service}/api/data`, headers: { "x-api-key": apiKey }, check: checkRest(0) },
      {
        name: "REST deep page",
        server: serviceProcess,
        url: `${service}/api/data?offset=${DEEP_OFFSET}`,
        headers: { "x-api-key": apiKey },
        check: checkRest(DEEP_OFFSET),
      },
      {
        name: "GraphQL first page (POST, key)",
        server: serviceProcess,
        url: `${service}/graphql`,
        method: "POST",
        headers: { "x-api-key": apiKey, "content-type": "application/json" },
        body: JSON.stringify({ query: pageQuery, variables }),
        check: checkGraphQL,
      },
      {
        // What every console page does: the session cookie, urql's Accept header.
        name: "GraphQL first page (POST, session)",
        server: serviceProcess,
        url: `${service}/graphql`,
        method: "POST",
        headers: { cookie: `sy_session=${operator.token}`, "content-type": "application/json", accept: CONSOLE_ACCEPT },
        body: JSON.stringify({ query: pageQuery, variables }),
        check: checkGraphQL,
      },
      {
        // What the console's client sends for a query: a GET with its session, Accept and CSRF header.
        name: "GraphQL first page (GET, session)",
        server: serviceProcess,
        url: `${service}/graphql?${new URLSearchParams({ query: pageQuery, variables: JSON.stringify(variables) })}`,
        headers: { cookie: `sy_session=${operator.token}`, accept: CONSOLE_ACCEPT, "x-graphql-yoga-csrf": "1" },
        check: checkGraphQL,
      },
    ];

    const targets = allTargets.filter((target) => !args.only || target.name.includes(args.only));
    for (const target of targets) {
      const response = await fetch(target.url, { method: target.method ?? "GET", headers: target.headers, body: target.body });
      try {
        target.check(response.status, response.headers, await response.text());
      } catch (error) {
        throw new Error(`${target.name}: ${(error as Error).message}`);
      }
    }

    const machine = {
      cpu: cpus()[0]?.model ?? "unknown",
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      postgres: await onBenchDb(async (client) => (await client.query<{ v: string }>("select current_setting('server_version') as v")).rows[0].v),
    };
    console.log(
      `\n${machine.cores} × ${machine.cpu}, Node ${machine.node}, PostgreSQL ${machine.postgres}; ` +
        `${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s per configuration, ${ROUNDS} round(s)\n`,
    );

    const rounds: Measured[][] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // Every other round in reverse order, so a drift of the machine's speed (or autovacuum after the
      // seeding) within a round falls on both sides of each ratio alike; rows stay in the targets' order.
      const rows: Measured[] = new Array(targets.length);
      for (const target of round % 2 === 1 ? targets : [...targets].reverse()) rows[targets.indexOf(target)] = await measure(target);
      rounds.push(rows);
      console.log(`Round ${round} (load average ${rows.map((r) => r.loadBefore.toFixed(1)).join(", ")})`);
      console.log(`${table(rows)}\n`);
    }

    const medians: Measured[] = targets.map((target, i) => {
      const of = (pick: (m: Measured) => number) => median(rounds.map((rows) => pick(rows[i])));
      const sum = (pick: (m: Measured) => number) => rounds.reduce((total, rows) => total + pick(rows[i]), 0);
      return {
        name: target.name,
        requestsPerSecond: of((m) => m.requestsPerSecond),
        p50: of((m) => m.p50),
        p99: of((m) => m.p99),
        errors: sum((m) => m.errors),
        timeouts: sum((m) => m.timeouts),
        non2xx: sum((m) => m.non2xx),
        loadBefore: of((m) => m.loadBefore),
        cpuMsPerRequest: of((m) => m.cpuMsPerRequest),
      };
    });
    // Ratios of each round, then their median: a round's configurations ran under the same load.
    const ratioOf = (a: string, b: string) => {
      const index = (name: string) => targets.findIndex((t) => t.name === name);
      if (index(a) < 0 || index(b) < 0) return Number.NaN; // not run (--only)
      return median(rounds.map((rows) => rows[index(a)].requestsPerSecond / rows[index(b)].requestsPerSecond));
    };
    const ratios = [
      { name: "REST first page ÷ raw first page", value: ratioOf("REST first page", "raw first page"), target: 0.8 },
      { name: "REST deep page ÷ REST first page", value: ratioOf("REST deep page", "REST first page"), target: 0.5 },
      { name: "GraphQL (POST, key) ÷ REST first page", value: ratioOf("GraphQL first page (POST, key)", "REST first page"), target: 0.8 },
      { name: "GraphQL (POST, session) ÷ REST first page", value: ratioOf("GraphQL first page (POST, session)", "REST first page"), target: 0.8 },
      { name: "GraphQL (GET, session) ÷ REST first page", value: ratioOf("GraphQL first page (GET, session)", "REST first page"), target: 0.8 },
      { name: "raw deep page ÷ raw first page", value: ratioOf("raw deep page", "raw first page"), target: undefined },
    ];

    console.log(ROUNDS > 1 ? `Median of ${ROUNDS} rounds` : "Result");
    console.log(`${table(medians)}\n`);
    for (const ratio of ratios) {
      if (Number.isNaN(ratio.value)) continue;
      const verdict = ratio.target === undefined ? "" : ratio.value >= ratio.target ? `  (target ≥ ${ratio.target}: met)` : `  (target ≥ ${ratio.target}: MISSED)`;
      console.log(`${ratio.name.padEnd(44)} ${ratio.value.toFixed(2)}${verdict}`);
    }

    const spread = targets.map((target, i) => {
      const values = rounds.map((rows) => rows[i].requestsPerSecond);
      return { name: target.name, min: Math.min(...values), max: Math.max(...values) };
    });
    writeFileSync(
      args.out,
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine,
          settings: { items: ITEMS, connections: CONNECTIONS, durationSeconds: DURATION, warmupSeconds: WARMUP, rounds: ROUNDS, poolSize: POOL_SIZE },
          results: medians,
          ratios,
          spread,
          rounds,
        },
        null,
        2,
      ) + "\n",
    );
    console.log(`\nWritten to ${args.out}`);

    const failed = medians.filter((m) => m.errors + m.timeouts + m.non2xx > 0);
    if (failed.length) {
      console.error(`Requests failed in: ${failed.map((m) => m.name).join(", ")}`);
      process.exitCode = 1;
    }
  } finally {
    for (const child of children) if (child.connected) child.disconnect();
    await Promise.all(children.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once("exit", resolve)) : undefined)));
    await benchDb.drop();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
