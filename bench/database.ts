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
  const onServer = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
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
  };
}
