import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { setFlagsFromString } from "node:v8";
import type { Logger } from "pino";
import { PrismaClient } from "../generated/prisma/client.ts";
import { packageRoot } from "../version.ts";
import { type Migration, migrate, readMigrations } from "./migrate.ts";
import type { StorageFailure } from "./storageGuard.ts";
import { type Sql, sqlOverPool } from "./sql.ts";

export type Db = PrismaClient;

export interface Database {
  prisma: PrismaClient;
  sql: Sql;
  /**
   * The delivery worker's own connections (PostgreSQL), so its claims and results do not queue
   * behind a burst of inbound inserts in the request pool. The same as `sql` on PGlite.
   */
  workerSql: Sql;
  /**
   * The accepting statement's own connections (PostgreSQL; the group commit keeps one statement in
   * flight, so two suffice), where prepared statements take a generic plan: PostgreSQL otherwise
   * planned that statement — a dozen CTEs — again on every batch (3.1 ms of its 7.3 ms at 200
   * events/s), since a plan for the batch's real array sizes always looked cheaper than one for any
   * size. The same as `sql` on PGlite.
   */
  recordingSql: Sql;
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

/**
 * Every connection's session settings (the pools add theirs). Timestamps are `timestamp without time
 * zone` holding UTC (Prisma's convention): every connection agrees, so that now() and Prisma's values
 * compare correctly. JIT off: every statement here is short OLTP work, but the event path's batch
 * statements are estimated above jit_above_cost, and PostgreSQL then spent 350–560 ms compiling each
 * batch before running it (EXPLAIN ANALYZE: "JIT: Emission 511 ms") — most of the database's CPU per event.
 */
export const connectionSettings = "-c TimeZone=UTC -c jit=off";

/**
 * The hot path's pools (accepting, claiming, recording attempts) plan no sequential scan where an
 * index reaches the rows; on the embedded database, neither do the named statements of its
 * workerSql and recordingSql (./pgliteSql.ts). A connection keeps the plan it made until autovacuum
 * next analyzes the table, and one made while a new deployment's tables held a few rows read them
 * whole on every batch once they grew: the benchmark's rate fell from round to round (test/delivery/cachedPlans.test.ts).
 * Nor a bitmap scan: one never marks the index entries of dead rows as dead, which a plain index
 * scan does, so the claim that took "status = PENDING" from a status index in a bitmap read every
 * PENDING version since the last vacuum, on every call (0.07 → 20 ms a claim within three rounds
 * of the forwarding benchmark; docs/benchmarks.md).
 */
const INDEXED_PLANS: PlannerSettings = { enable_seqscan: "off", enable_bitmapscan: "off" };
/** The recording pool's plans (the accepting statement's, the attempts'): generic ones, kept once made. */
export const RECORDING_PLANS: PlannerSettings = { plan_cache_mode: "force_generic_plan", ...INDEXED_PLANS };

/** Planner settings of a pool's sessions: PostgreSQL setting → value. */
export type PlannerSettings = Record<string, string>;

/** Settings as a connection's startup options (`-c name=value`). */
export const asOptions = (settings: PlannerSettings) =>
  Object.entries(settings)
    .map(([name, value]) => ` -c ${name}=${value}`)
    .join("");

/**
 * PostgreSQL's settings inside PGlite. Its shared buffers live in the process's WebAssembly memory
 * and were the largest part of the embedded service's RSS: 128 MB by default, for a database that
 * reads through the OS page cache anyway (docs/benchmarks.md has what each size measured). 8 MB
 * since the catalog passed 100 connectors: 16 MB left the first embedded start at ~257 MB idle.
 */
export const PGLITE_SETTINGS = [
  "-c",
  "shared_buffers=8MB",
  "-c",
  "wal_buffers=512kB",
  // PGlite starts PostgreSQL with fsync off (its `-F`): a commit answered 2xx would survive the process
  // but not a power cut. On, a commit returns once its WAL is on the disk, through the guarded file
  // system's flush (./storageGuard.ts); a file system with none (in memory, the build's) flushes nothing.
  // Through fsync(): Emscripten's fdatasync() is a no-op, its fsync() reaches the file system.
  "-c",
  "fsync=on",
  "-c",
  "wal_sync_method=fsync",
  // Nothing checkpoints the embedded database but ./checkpointJob.ts, which does at this much WAL
  // (PostgreSQL's rule); the default 1 GB would keep a gigabyte of WAL and take ~7 s to replay after a crash.
  "-c",
  "max_wal_size=128MB",
];

/**
 * PostgreSQL's WebAssembly runs on V8's baseline compiler only (Liftoff), never tiered up to the
 * optimizing one: at a start, recompiling the functions the start runs hot was half the CPU PGlite
 * used (opening a database and its first statements: ~1,080 → ~600 ms of CPU, on threads beside
 * the main one), while the statements of a running service cost ~10 % more CPU without it
 * (docs/benchmarks.md, "The first start from a migrated template"). The embedded database serves
 * small installations, where a start is the larger cost; PostgreSQL is the one for throughput.
 */
export const PGLITE_V8_FLAGS = "--liftoff-only";

/**
 * An embedded database made at build time (`npm run build`, scripts/build-pgdata.ts): initdb, then
 * the migrations. A new DATA_DIR starts as a copy of it instead of running initdb (seconds of CPU,
 * ~500 MB more RSS) and then every migration (~2 s of CPU) at its first start. Without it (not
 * built), or when it holds a migration this code does not have, PGlite runs initdb as before.
 */
export const PGDATA_TEMPLATE = join(packageRoot, "dist", "pgdata-template");
/** What the template holds (scripts/build-pgdata.ts writes it last, once the template is whole). */
export const PGDATA_TEMPLATE_MANIFEST = `${PGDATA_TEMPLATE}.json`;

export interface PgdataTemplateManifest {
  /** Folders a packed copy of the template loses (npm pack keeps no empty folder). */
  emptyDirs: string[];
  /** The migrations applied to it, oldest first. */
  migrations: { name: string; checksum: string }[];
  /** The databases it holds: only `postgres`, the one the service opens (an older build's also held initdb's templates). */
  databases?: string[];
}

/**
 * Leaves a new embedded database holding only the database the service opens (`postgres`): nothing
 * creates another from initdb's template0 and template1, which would be 600 of the 1,120 files a
 * first start copies, and which the embedded database can never vacuum (vacuumJob.ts).
 */
export async function dropTemplateDatabases(pglite: { exec(query: string): Promise<unknown> }): Promise<void> {
  for (const template of ["template0", "template1"]) {
    await pglite.exec(`alter database ${template} is_template false`);
    await pglite.exec(`drop database ${template}`);
  }
}

/**
 * Whether the build's template is the one this checkout makes (scripts/build-pgdata.ts makes it
 * again otherwise): exactly these migrations, unchanged, and nothing but `postgres` (a template from
 * an older build, whose manifest says nothing of its databases, still holds template0 and template1).
 */
export function templateIsCurrent(manifest: PgdataTemplateManifest, migrations: Migration[]): boolean {
  return (
    manifest.databases?.length === 1 &&
    manifest.databases[0] === "postgres" &&
    manifest.migrations.length === migrations.length &&
    templateMatches(manifest, migrations)
  );
}

/** Every migration the template holds is one of `migrations`, unchanged: the code can take it from there. */
export function templateMatches(manifest: PgdataTemplateManifest, migrations: Migration[]): boolean {
  const checksums = new Map(migrations.map((migration) => [migration.name, migration.checksum]));
  return manifest.migrations.every((held) => checksums.get(held.name) === held.checksum);
}

/** Opens the database, applies pending migrations and returns Prisma plus the driver's SQL. */
export async function openDatabase(target: DatabaseTarget, logger: Logger): Promise<Database> {
  let database: Database;
  const migrations = readMigrations();
  let templateMigrations: string[] = [];
  // Each driver is loaded only when used: start-up time is mostly loading modules.
  if (target.kind === "postgresql") {
    const [{ default: pg }, { PrismaPg }] = await Promise.all([import("pg"), import("@prisma/adapter-pg")]);
    const statementTimeout = target.statementTimeoutMs ? ` -c statement_timeout=${Math.round(target.statementTimeoutMs)}` : "";
    // A bounded wait for a connection: during an outage a request fails (503) instead of queueing forever.
    const poolOf = (max: number, settings: string) => {
      const made = new pg.Pool({ connectionString: target.url, max, options: connectionSettings + settings, connectionTimeoutMillis: 5_000 });
      // An idle client losing its connection must not crash the process; the pool replaces it.
      // Debug only, and only the message: pg's error carries its client (statements included), and an
      // outage closes every idle connection at once — the outage itself is logged once (./outage.ts).
      made.on("error", (error) => logger.debug({ message: error.message }, "idle database connection closed"));
      return made;
    };
    const pool = poolOf(target.poolSize ?? 10, statementTimeout);
    const workerPool = poolOf(3, asOptions(INDEXED_PLANS));
    const recordingPool = poolOf(2, statementTimeout + asOptions(RECORDING_PLANS));
    database = {
      prisma: new PrismaClient({ adapter: new PrismaPg(pool) }),
      sql: sqlOverPool(pool),
      workerSql: sqlOverPool(workerPool),
      recordingSql: sqlOverPool(recordingPool),
      kind: "postgresql",
      close: async () => {
        await database.prisma.$disconnect();
        await Promise.all([pool.end(), workerPool.end(), recordingPool.end()]);
      },
    };
  } else {
    if (target.dataDir) {
      mkdirSync(target.dataDir, { recursive: true });
      lockDataDir(target.dataDir);
    }
    // Set before PGlite's module is compiled (the flag is read then), for the whole process.
    setFlagsFromString(PGLITE_V8_FLAGS);
    const [{ PGlite }, { PrismaPGlite }, { GuardedNodeFS }, { sqlOverPGlite }] = await Promise.all([
      import("@electric-sql/pglite"),
      import("pglite-prisma-adapter"),
      import("./storageGuard.ts"),
      import("./pgliteSql.ts"),
    ]);
    const pgdata = target.dataDir ? join(target.dataDir, "pgdata") : undefined;
    if (pgdata && !existsSync(pgdata)) templateMigrations = copyTemplate(pgdata, migrations, logger);
    const onStorageFailure = target.onStorageFailure ?? defaultStorageFailure;
    const pglite = new PGlite({
      // On disk, through the guard that ends the process on a write the disk refuses (./storageGuard.ts).
      ...(pgdata ? { fs: new GuardedNodeFS(pgdata, { onFailure: onStorageFailure, testOnlyFailWritesWhen: target.testOnlyFailWritesWhen }) } : {}),
      ...(!pgdata && target.testOnlyStartFrom ? { loadDataDir: target.testOnlyStartFrom } : {}),
      startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS],
    });
    await pglite.waitReady;
    await pglite.exec("set TimeZone = 'UTC'");
    // One session under the three, each planning its named statements with its pool's settings.
    database = {
      prisma: new PrismaClient({ adapter: new PrismaPGlite(pglite) }),
      sql: sqlOverPGlite(pglite),
      workerSql: sqlOverPGlite(pglite, INDEXED_PLANS),
      recordingSql: sqlOverPGlite(pglite, RECORDING_PLANS),
      kind: "pglite",
      close: async () => {
        await database.prisma.$disconnect();
        await pglite.close();
      },
    };
  }
  // A database just copied from the template was created with the template's migrations: they count as applied by this open.
  database.migrationsApplied = [...templateMigrations, ...(await migrate(database.sql, logger, migrations))];
  return database;
}

/**
 * A new embedded database as a copy of the build's template, when there is one this code can
 * migrate. Copied aside and renamed: a start interrupted mid-copy must not leave half a database.
 * Returns the migrations the copy holds (none: no usable template, PGlite runs initdb).
 */
function copyTemplate(pgdata: string, migrations: Migration[], logger: Logger): string[] {
  if (!existsSync(PGDATA_TEMPLATE_MANIFEST)) return [];
  const manifest = JSON.parse(readFileSync(PGDATA_TEMPLATE_MANIFEST, "utf8")) as PgdataTemplateManifest;
  if (!templateMatches(manifest, migrations)) {
    logger.warn({ template: PGDATA_TEMPLATE }, "the embedded database template holds migrations this code does not have (run `npm run build:pgdata`): creating the database without it");
    return [];
  }
  const copying = `${pgdata}.copying-${process.pid}`;
  cpSync(PGDATA_TEMPLATE, copying, { recursive: true });
  for (const dir of manifest.emptyDirs) mkdirSync(join(copying, dir), { recursive: true });
  renameSync(copying, pgdata);
  // Not awaited: the start does not wait ~0.1 s (seconds while the disk is busy) for it, and nothing can
  // be accepted into a new database before an operator has connected an account, long after this ends.
  const started = Date.now();
  flushFolder(pgdata).then(
    (files) => logger.debug({ files, ms: Date.now() - started }, "the new embedded database's files are flushed to the disk"),
    (error) => logger.warn({ err: error }, "the new embedded database's files could not be flushed to the disk"),
  );
  return manifest.migrations.map((migration) => migration.name);
}

/**
 * Flushes a folder's files, then its folders and the one holding it, to the disk. A copy is in the
 * page cache only, and PostgreSQL flushes a file only when it writes it: without this a power cut
 * in the next half minute could leave the copy's files torn under the commits made since.
 */
async function flushFolder(folder: string): Promise<number> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const paths = [...entries.filter((entry) => entry.isFile()), ...entries.filter((entry) => entry.isDirectory())].map((entry) => join(entry.parentPath, entry.name));
  paths.push(folder, dirname(folder));
  // A few at a time: Node's file system thread pool has four threads.
  for (let i = 0; i < paths.length; i += 16) {
    await Promise.all(
      paths.slice(i, i + 16).map(async (path) => {
        const file = await open(path, "r");
        try {
          await file.datasync();
        } finally {
          await file.close();
        }
      }),
    );
  }
  return paths.length;
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
