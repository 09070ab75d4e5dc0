import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { type Child, spawnNode } from "./childProcess.ts";
import { freePort } from "./serviceProcess.ts";
import { scaled } from "./timing.ts";

/**
 * A Redis or PostgreSQL server of the test's own, on a free port, which the test stops, starts again
 * and kills at will (the shared servers of the suite must never be stopped). Every process goes
 * through childProcess.ts, so none outlives its test.
 */
const RUN_WITH_PARENT = fileURLToPath(new URL("./runWithParent.mjs", import.meta.url));

function which(program: string, candidates: string[] = []): string | undefined {
  for (const path of candidates) if (existsSync(path)) return path;
  try {
    return execFileSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const pgBin = (name: string) => which(name, [15, 16, 17, 14, 13].map((v) => `/usr/lib/postgresql/${v}/bin/${name}`));
const redisServer = which("redis-server");

/** Why these tests cannot run here (a binary is missing), or undefined. */
export const ownServersMissing: string | undefined = !redisServer
  ? "redis-server is not installed"
  : !pgBin("initdb") || !pgBin("postgres")
    ? "PostgreSQL's initdb/postgres binaries are not installed"
    : undefined;

function run(command: string, args: string[], user?: { uid: number; gid: number }): Child {
  return spawnNode([RUN_WITH_PARENT, JSON.stringify({ command, args, ...user })]);
}

async function waitUntil(check: () => Promise<boolean>, what: string, child: Child): Promise<void> {
  const deadline = Date.now() + scaled(30_000);
  while (!(await check())) {
    if (child.process.exitCode !== null) throw new Error(`${what} exited: ${child.output().slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`${what} did not start: ${child.output().slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface OwnServer {
  url: string;
  /** Starts it (again, on the same port and data). */
  start(): Promise<void>;
  /** Stops it at once, as a crash or `pg_ctl stop -m immediate` would (SIGKILL for Redis, SIGQUIT for PostgreSQL). */
  stopNow(): Promise<void>;
}

export async function ownRedis(): Promise<OwnServer> {
  const port = await freePort();
  let child: Child | undefined;
  const server: OwnServer = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      const current = run(redisServer!, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]);
      child = current;
      await waitUntil(async () => current.output().includes("Ready to accept connections"), "redis-server", current);
    },
    async stopNow() {
      await child?.kill();
    },
  };
  return server;
}

/**
 * initdb as the `postgres` user when the tests run as root (PostgreSQL refuses to run as root),
 * trust authentication on 127.0.0.1 only, no Unix socket, fsync off (a test's data). `asShipped`:
 * PostgreSQL's own defaults instead (fsync on, its max_connections), for a benchmark that must not
 * depend on how the machine's shared server was tuned. `settings`: more `name=value` for its command line.
 * `maxFileMb`: the largest file it may write (`ulimit -f`), so a table that reaches it cannot grow,
 * as on a full disk (PostgreSQL ignores SIGXFSZ; its WAL segments are 16 MB, so keep this above that).
 */
export interface OwnPostgres extends OwnServer {
  /** Stops it and deletes its data folder: the end of its test or run (tens of MB, more after a load). */
  remove(): Promise<void>;
}

export async function ownPostgres(options: { asShipped?: boolean; settings?: string[]; maxFileMb?: number } = {}): Promise<OwnPostgres> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "sy-own-pg-"));
  let user: { uid: number; gid: number } | undefined;
  if (process.getuid?.() === 0) {
    user = {
      uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })),
      gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" })),
    };
    chownSync(dataDir, user.uid, user.gid);
  }
  const init = run(pgBin("initdb")!, ["-D", dataDir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"], user);
  if ((await init.exited) !== 0) throw new Error(`initdb failed: ${init.output().slice(-2000)}`);
  let child: Child | undefined;
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const answers = async () => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query("select 1");
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const server: OwnPostgres = {
    url,
    async start() {
      const args = ["-D", dataDir, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", ...(options.asShipped ? [] : ["-c", "fsync=off", "-c", "max_connections=60"]), ...(options.settings ?? []).flatMap((setting) => ["-c", setting])];
      const current =
        options.maxFileMb === undefined
          ? run(pgBin("postgres")!, args, user)
          : // sh's ulimit -f counts 512-byte blocks (POSIX).
            run("/bin/sh", ["-c", `ulimit -f ${options.maxFileMb * 2048} && exec "$0" "$@"`, pgBin("postgres")!, ...args], user);
      child = current;
      await waitUntil(answers, "postgres", current);
    },
    async stopNow() {
      if (!child) return;
      child.process.kill("SIGQUIT"); // the wrapper passes it on: PostgreSQL's immediate shutdown
      await child.exited;
    },
    async remove() {
      await server.stopNow();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}
