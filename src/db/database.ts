import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import { PrismaClient } from "../generated/prisma/client.ts";
import { packageRoot } from "../version.ts";
import { migrate } from "./migrate.ts";
import type { StorageFailure } from "./storageGuard.ts";
import { type Sql, sqlOverPGlite, sqlOverPool } from "./sql.ts";

export type Db = PrismaClient;

export interface Database {
  prisma: PrismaClient;
  sql: Sql;
  /**
   * The delivery worker's own connections (PostgreSQL), so its claims and results do not queue
   * behind a burst of inbound inserts in the request pool. The same as `sql` on PGlite.
   */
  workerSql: Sql;
  kind: "pglite" | "postgresql";
  /** The migrations this open applied, oldest first (empty: the database was up to date). */
  migrationsApplied?: string[];
  close(): Promise<void>;
}

export type DatabaseTarget =
  | {
      kind: "postgresql";
      url: string;
      poolSize?: number;
      /**
       * statement_timeout of the request pool (ms; 0 or absent: none). A statement past it is
       * cancelled (SQLSTATE 57014, see ./errors.ts). The worker's pool and migrations have none.
       */
      statementTimeoutMs?: number;
    }
  | {
      kind: "pglite";
      dataDir: string | undefined; // undefined: in memory (tests)
      /** Called inside a write the disk refused for good; must end the process (./storageGuard.ts). */
      onStorageFailure?: (failure: StorageFailure) => void;
      /** TEST ONLY: writes fail with ENOSPC while this file exists (./storageGuard.ts). */
      testOnlyFailWritesWhen?: string;
      /**
       * TEST ONLY, in memory: start from this dump (PGlite's dumpDataDir) instead of running initdb,
       * which costs seconds of CPU per database; the test suite makes one migrated dump per run.
       */
      testOnlyStartFrom?: Blob;
    };

// Timestamps are `timestamp without time zone` holding UTC (Prisma's convention); make every
// connection agree so that now() and Prisma's values compare correctly.
//
// JIT off: every statement here is short OLTP work, but the event path's batch statements are
// estimated above jit_above_cost, and PostgreSQL then spent 350–560 ms compiling each batch before
// running it (EXPLAIN ANALYZE: "JIT: Emission 511 ms") — most of the database's CPU per event.
const utc = "-c TimeZone=UTC -c jit=off";

/**
 * PostgreSQL's settings inside PGlite. Its shared buffers live in the process's WebAssembly memory
 * and were the largest part of the embedded service's RSS: 128 MB by default, for a database that
 * reads through the OS page cache anyway (docs/benchmarks.md has what each size measured). 8 MB
 * since the catalog passed 100 connectors: 16 MB left the first embedded start at ~257 MB idle.
 */
export const PGLITE_SETTINGS = ["-c", "shared_buffers=8MB", "-c", "wal_buffers=512kB"];

/**
 * An empty embedded database made at build time (`npm run build`, scripts/build-pgdata.ts). A new
 * DATA_DIR starts as a copy of it instead of running initdb at start-up, which took seconds of CPU
 * and left the process ~500 MB larger. Without it (not built), PGlite runs initdb as before.
 */
export const PGDATA_TEMPLATE = join(packageRoot, "dist", "pgdata-template");
/** The template's empty folders, which a packed copy of it loses (scripts/build-pgdata.ts). */
export const PGDATA_TEMPLATE_EMPTY_DIRS = `${PGDATA_TEMPLATE}.empty-dirs.json`;

/** Opens the database, applies pending migrations and returns Prisma plus the driver's SQL. */
export async function openDatabase(target: DatabaseTarget, logger: Logger): Promise<Database> {
  let database: Database;
  // Each driver is loaded only when used: start-up time is mostly loading modules.
  if (target.kind === "postgresql") {
    const [{ default: pg }, { PrismaPg }] = await Promise.all([import("pg"), import("@prisma/adapter-pg")]);
    const statementTimeout = target.statementTimeoutMs ? ` -c statement_timeout=${Math.round(target.statementTimeoutMs)}` : "";
    // A bounded wait for a connection: during an outage a request fails (503) instead of queueing forever.
    const pool = new pg.Pool({ connectionString: target.url, max: target.poolSize ?? 10, options: utc + statementTimeout, connectionTimeoutMillis: 5_000 });
    const workerPool = new pg.Pool({ connectionString: target.url, max: 3, options: utc, connectionTimeoutMillis: 5_000 });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    // Debug only, and only the message: pg's error carries its client (statements included), and an
    // outage closes every idle connection at once — the outage itself is logged once (./outage.ts).
    for (const each of [pool, workerPool]) each.on("error", (error) => logger.debug({ message: error.message }, "idle database connection closed"));
    database = {
      prisma: new PrismaClient({ adapter: new PrismaPg(pool) }),
      sql: sqlOverPool(pool),
      workerSql: sqlOverPool(workerPool),
      kind: "postgresql",
      close: async () => {
        await database.prisma.$disconnect();
        await Promise.all([pool.end(), workerPool.end()]);
      },
    };
  } else {
    if (target.dataDir) {
      mkdirSync(target.dataDir, { recursive: true });
      lockDataDir(target.dataDir);
    }
    const [{ PGlite }, { PrismaPGlite }, { GuardedNodeFS }] = await Promise.all([
      import("@electric-sql/pglite"),
      import("pglite-prisma-adapter"),
      import("./storageGuard.ts"),
    ]);
    const pgdata = target.dataDir ? join(target.dataDir, "pgdata") : undefined;
    if (pgdata && !existsSync(pgdata) && existsSync(PGDATA_TEMPLATE)) {
      // Copied aside and renamed: a start interrupted mid-copy must not leave half a database.
      const copying = `${pgdata}.copying-${process.pid}`;
      cpSync(PGDATA_TEMPLATE, copying, { recursive: true });
      if (existsSync(PGDATA_TEMPLATE_EMPTY_DIRS)) {
        for (const dir of JSON.parse(readFileSync(PGDATA_TEMPLATE_EMPTY_DIRS, "utf8")) as string[]) mkdirSync(join(copying, dir), { recursive: true });
      }
      renameSync(copying, pgdata);
    }
    const onStorageFailure = target.onStorageFailure ?? defaultStorageFailure;
    const pglite = new PGlite({
      // On disk, through the guard that ends the process on a write the disk refuses (./storageGuard.ts).
      ...(pgdata ? { fs: new GuardedNodeFS(pgdata, onStorageFailure, target.testOnlyFailWritesWhen) } : {}),
      ...(!pgdata && target.testOnlyStartFrom ? { loadDataDir: target.testOnlyStartFrom } : {}),
      startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS],
    });
    await pglite.waitReady;
    await pglite.exec("set TimeZone = 'UTC'");
    database = {
      prisma: new PrismaClient({ adapter: new PrismaPGlite(pglite) }),
      sql: sqlOverPGlite(pglite),
      workerSql: sqlOverPGlite(pglite),
      kind: "pglite",
      close: async () => {
        await database.prisma.$disconnect();
        await pglite.close();
      },
    };
  }
  database.migrationsApplied = await migrate(database.sql, logger);
  return database;
}

/** Without a handler from main.ts: say why, and end the process (nothing else can run after a PANIC). */
function defaultStorageFailure(failure: StorageFailure): void {
  process.stderr.write(`Switchyard: the embedded database could not write ${failure.path}: ${failure.message}. Stopping.\n`);
  process.exit(74);
}

/**
 * PGlite is one process per data folder: a second process would corrupt it. The lock file holds
 * the owner's pid; a stale one (its process is gone, e.g. after kill -9) is taken over.
 */
function lockDataDir(dataDir: string) {
  const file = join(dataDir, "switchyard.pid");
  try {
    writeFileSync(file, String(process.pid), { flag: "wx" });
  } catch {
    const owner = Number(readFileSync(file, "utf8"));
    if (owner && owner !== process.pid && isAlive(owner)) {
      throw new Error(
        `Another Switchyard process (pid ${owner}) is using the embedded database in ${dataDir}. ` +
          "Stop it, or set DATA_DIR to another folder (or DATABASE_URL to share a PostgreSQL server).",
      );
    }
    writeFileSync(file, String(process.pid));
  }
  process.once("exit", () => rmSync(file, { force: true }));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
