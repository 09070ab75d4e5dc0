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
    // Every file has its own database, so files run in parallel; most time is spent waiting on I/O.
    pool: "forks",
    maxWorkers: 3,
    // Generous: several tests start the service or the CLI as child processes, which compile
    // TypeScript first; on a busy 2-core machine that alone can take tens of seconds. Scaled by
    // TEST_TIMEOUT_SCALE or, without it, by the load average (test/helpers/timing.ts).
    testTimeout: scaled(90_000),
    hookTimeout: scaled(120_000),
  },
});
