import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";

// Nothing here may download Prisma's native engines (this machine has no internet). With the client
// engine and the WASM schema engine none is used, but the CLI still checks for them: point the
// check at any existing file.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
process.env.PRISMA_QUERY_ENGINE_LIBRARY ??= process.execPath;

// The CLI is used offline only for `generate` and `migrate diff` (SQL from the schema, no database):
// migrations are applied by the service itself at start-up (src/db/migrate.ts). The adapter and the
// "js" engine keep the CLI on its WASM schema engine, which needs no download.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  experimental: { adapter: true },
  engine: "js",
  adapter: async () =>
    new PrismaPg({ connectionString: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres" }),
});
