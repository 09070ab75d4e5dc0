import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { type Child, spawnNode } from "./childProcess.ts";
import { graphqlClient, type TestApp } from "./testApp.ts";
import { scaled } from "./timing.ts";

/**
 * The real service as its own process (`node --import tsx src/main.ts`), for stories that need to
 * kill it: same port and data on every restart, output kept for the failure message.
 */
export interface ServiceProcess {
  url: string;
  /** A TestApp-shaped client (url + gql) so helpers like createOperator and connectAccount work against it. */
  client: TestApp;
  start(): Promise<void>;
  /** SIGKILL: no shutdown code runs. */
  kill9(): Promise<void>;
  /** SIGTERM and wait (SIGKILL if it does not end in time): the graceful path. Resolves with the exit code (or the signal's name). */
  stop(): Promise<number | string>;
  output(): string;
  /** The running process's id (benchmarks read its CPU time from /proc). */
  pid(): number | undefined;
}

/**
 * The first port of the kernel's ephemeral range (net.ipv4.ip_local_port_range; 32768 on Linux by
 * default), from which it takes the local port of every outgoing connection.
 */
const EPHEMERAL_FROM = (() => {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
})();

/**
 * A port nothing listens on, for a child process to listen on soon after. Chosen at random below the
 * ephemeral range, not by listening on port 0: a port from that range could be taken, before the
 * child listens, by any outgoing connection on the machine (the suite opens thousands on loopback;
 * a service restarted on its port once failed with EADDRINUSE that way).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * (Math.max(EPHEMERAL_FROM, 20_000) - 10_000));
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (!bound) continue;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }
}

/**
 * What every service a test or benchmark starts runs with unless its settings say otherwise: test mode,
 * warnings only, cheap password hashes, a signup limit no test reaches, and one key for every
 * instance this process starts (instances on one database must open each other's secrets).
 */
const DEFAULT_SETTINGS = {
  NODE_ENV: "test",
  LOG_LEVEL: "warn",
  PASSWORD_HASH_COST: "10",
  SIGNUP_RATE_LIMIT_PER_HOUR: "10000",
  ENCRYPTION_KEY: randomBytes(32).toString("base64"),
};

/** What `npm start` runs (needs `npm run build`), as the benchmarks do. */
export const COMPILED_ENTRY = "dist/main.js";

/** The tests of dist/ need it built: `npm install` and CI build it; after changing src/, `npm run build:server`. */
export function requireBuild(): void {
  if (!existsSync(COMPILED_ENTRY)) throw new Error(`${COMPILED_ENTRY} is missing: run npm run build`);
}

/** The node flags of package.json's start script (`--max-semi-space-size=8`): a built entry runs with them, as deployed. */
export const START_FLAGS = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { scripts: { start: string } }).scripts.start
  .split(" ")
  .filter((word) => word.startsWith("--"));

/**
 * `entry`: a built main.js to run instead of the TypeScript sources, a path from the repository's
 * root: COMPILED_ENTRY, or another build's copy for a benchmark that sets two builds side by side;
 * it runs with the start script's flags (START_FLAGS). `env` is laid over DEFAULT_SETTINGS.
 * `nodeFlags`: Node's or V8's flags for this process, after those (a benchmark's `--perf-basic-prof`,
 * `--trace-deopt`, a different `--max-semi-space-size`; NODE_OPTIONS refuses most V8 flags).
 */
export async function serviceProcess(env: Record<string, string>, options: { entry?: string; nodeFlags?: string[] } = {}): Promise<ServiceProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: Child | undefined;
  let earlierOutput = "";

  const service: ServiceProcess = {
    url,
    client: { url, gql: graphqlClient(url) } as unknown as TestApp,
    async start() {
      if (child) earlierOutput += child.output();
      const argv = options.entry ? [...START_FLAGS, ...(options.nodeFlags ?? []), options.entry] : [...(options.nodeFlags ?? []), "--import", "tsx", "src/main.ts"];
      const current = spawnNode(argv, {
        cwd: new URL("../..", import.meta.url).pathname,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: url, ...DEFAULT_SETTINGS, ...env },
      });
      child = current;
      // Starting compiles the TypeScript first: tens of seconds on a busy machine, so the wait scales.
      const waitMs = scaled(60_000);
      const deadline = Date.now() + waitMs;
      let last = "no answer yet";
      for (;;) {
        if (current.process.exitCode !== null) throw new Error(`the service exited with ${current.process.exitCode} before it was ready. Its output:\n${current.output().slice(-3000)}`);
        try {
          const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) });
          // Ready only if this child is the one listening: between freePort() and the child's listen
          // another test's process can take the port, and its 200 would stand in for this one's.
          if (response.status === 200 && current.output().includes("Switchyard is up")) return;
          last = `HTTP ${response.status}${response.status === 200 ? ", but this process has not said it is up (another may hold the port)" : ""}`;
        } catch (error) {
          last = (error as Error).message;
        }
        if (Date.now() > deadline) {
          // A service that never became ready must not outlive the test that started it.
          await current.kill();
          throw new Error(
            `the service did not become ready: GET ${url}/readyz did not answer 200 within ${Math.round(waitMs / 1000)} s (last: ${last}). Its output:\n${current.output().slice(-3000) || "(none)"}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async kill9() {
      await child?.kill();
    },
    async stop() {
      return child ? child.stop() : 0;
    },
    output: () => earlierOutput + (child?.output() ?? ""),
    pid: () => child?.process.pid,
  };
  return service;
}
