import { ConfigError, loadConfig } from "../config.ts";
import { printable } from "./connection.ts";
import { openDatabase } from "../db/database.ts";
import { createLogger } from "../log.ts";

export const migrateHelp = `Usage: switchyard migrate

Applies pending migrations to the database named by DATABASE_URL (or the embedded database in
DATA_DIR when it is unset), then exits. Safe to run from several machines at once: one applies,
the others wait and find nothing to do. \`serve\` migrates at start-up too; use this in a deploy
step that must finish before new instances start.
`;

export async function migrate(): Promise<number> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${printable(error.message)}\n`);
      return 2;
    }
    throw error;
  }
  const logger = createLogger(config.logLevel === "info" ? "warn" : config.logLevel);
  try {
    const database = await openDatabase(
      config.databaseUrl ? { kind: "postgresql", url: config.databaseUrl } : { kind: "pglite", dataDir: config.dataDir },
      logger,
    );
    await database.close();
    const where = database.kind === "pglite" ? `the embedded database in ${config.dataDir}` : "PostgreSQL";
    const applied = database.migrationsApplied ?? [];
    process.stdout.write(applied.length > 0 ? `Applied ${applied.join(", ")} to ${printable(where)}.\n` : `Already up to date (${where}): nothing to apply.\n`);
    return 0;
  } catch (error) {
    process.stderr.write(
      `Could not migrate the database: ${printable((error as Error).message)}\n` +
        (config.databaseUrl ? "Check DATABASE_URL and that the server is reachable.\n" : "Check DATA_DIR, and that no other Switchyard process uses it.\n"),
    );
    return 1;
  }
}
