import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * A PostgreSQL database of the benchmark's own, `sy_bench_<random>` on BENCH_DATABASE_URL
 * (default postgresql://postgres@127.0.0.1:5432/postgres): created before the run, dropped after,
 * so runs never see each other's rows.
 */
export function benchDatabase() {
  const serverUrl = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
  const name = `sy_bench_${randomBytes(5).toString("hex")}`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const onServer = async <Row extends pg.QueryResultRow>(statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      return (await client.query<Row>(statement)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    name,
    /** The benchmark database's own connection string. */
    url: url.toString(),
    create: () => onServer(`create database ${name}`),
    drop: () => onServer(`drop database if exists ${name} with (force)`),
    /**
     * The server's settings that decide what a write costs it, recorded beside the figures: a CI
     * server may run without autovacuum, or with a small shared_buffers that the run's tables outgrow.
     */
    settings: async () =>
      Object.fromEntries(
        (
          await onServer<{ name: string; setting: string }>(
            `select name, current_setting(name) as setting from pg_settings
             where name in ('server_version', 'autovacuum', 'fsync', 'synchronous_commit', 'shared_buffers', 'max_wal_size', 'checkpoint_timeout')
             order by name`,
          )
        ).map((row) => [row.name, row.setting]),
      ),
  };
}
