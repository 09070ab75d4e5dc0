import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";
import { scaled } from "./test/helpers/timing.ts";

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS build for the libraries; make our own imports use the same
    // copy, or graphql-js refuses objects from the "other" module.
    alias: [{ find: /^graphql$/, replacement: require.resolve("graphql") }],
  },
  test: {
    include: ["test/**/*.test.ts"],
    // One migrated database per run, which every test app's database is copied from.
    globalSetup: ["test/databaseTemplate.ts"],
    // Every file has its own database, so files run in parallel; most time is spent waiting on I/O.
    pool: "forks",
    // Each worker loads the service's modules once for all the files it runs, instead of once per
    // file: importing them was most of a file's start-up (5-10 s of CPU). Safe because no module in
    // src/ keeps state (test/layout/moduleState.test.ts); every file still builds its own apps.
    isolate: false,
    maxWorkers: 3,
    // Generous: several tests start the service or the CLI as child processes, which compile
    // TypeScript first; on a busy 2-core machine that alone can take tens of seconds. Scaled by
    // TEST_TIMEOUT_SCALE or, without it, by the load average (test/helpers/timing.ts).
    testTimeout: scaled(90_000),
    hookTimeout: scaled(120_000),
  },
});
