import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import type { Logger } from "pino";
import { PrismaClient } from "../generated/prisma/client.ts";
import { migrate } from "./migrate.ts";
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
  close(): Promise<void>;
}

export type DatabaseTarget =
  | { kind: "postgresql"; url: string; poolSize?: number }
  | { kind: "pglite"; dataDir: string | undefined }; // undefined: in memory (tests)

// Timestamps are `timestamp without time zone` holding UTC (Prisma's convention); make every
// connection agree so that now() and Prisma's values compare correctly.
const utc = "-c TimeZone=UTC";

/** Opens the database, applies pending migrations and returns Prisma plus the driver's SQL. */
export async function openDatabase(target: DatabaseTarget, logger: Logger): Promise<Database> {
  let database: Database;
  if (target.kind === "postgresql") {
    const pool = new pg.Pool({ connectionString: target.url, max: target.poolSize ?? 10, options: utc });
    const workerPool = new pg.Pool({ connectionString: target.url, max: 3, options: utc });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    for (const each of [pool, workerPool]) each.on("error", (error) => logger.warn({ err: error }, "idle database connection closed"));
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
    const pglite = new PGlite(target.dataDir ? join(target.dataDir, "pgdata") : undefined);
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
  await migrate(database.sql, logger);
  return database;
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
