/**
 * `npm run build:server`: the server as it is deployed, bundled into dist/ by esbuild.
 *
 * Start-up time was mostly loading modules: hundreds of files, each a file-system lookup and a
 * compile. Bundled, `dist/main.js` and the chunks it imports statically are what a start loads;
 * whatever the code reaches with `import()` (the GraphQL schema, the connector catalog, OpenAPI,
 * the workers' modules, the CLI's commands) is a chunk of its own, loaded on first use
 * (`--splitting`). docs/decisions.md ("The server is bundled") has the measurements.
 *
 * Left outside the bundle, loaded from node_modules as before: packages that find files of their
 * own at run time (PGlite's WebAssembly and data files, Prisma's query compiler, swagger-ui's
 * assets, GraphiQL's 9 MB page) or are only loaded when configured (ioredis, pg).
 *
 * Before bundling, the connector catalog is checked once (every declaration validated and compiled,
 * as a start used to do): a bad declaration fails the build, naming its file and field, and a
 * start only validates the declarations it uses (src/connectors/registry.ts).
 *
 * `tsc` still type-checks everything (`npm run typecheck`); it no longer emits.
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { build } from "esbuild";
import { loadConnectors } from "../src/connectors/registry.ts";
import { providers } from "../src/connectors/providers/index.ts";

const external = [
  "@electric-sql/pglite",
  "@electric-sql/pglite/*",
  "pglite-prisma-adapter",
  // Prisma's query compiler and its WebAssembly. Its runtime (runtime/client) is bundled: left outside,
  // Node hands an `import` of it the CommonJS form (the package's `node` condition comes first) and
  // scans that for its exports; bundled, an embedded start took about 250 ms less CPU on a slow machine.
  "@prisma/client/runtime/query_compiler*",
  "@prisma/adapter-pg",
  "pg",
  "ioredis",
  "@graphql-yoga/redis-event-target",
  "swagger-ui-dist",
  "@graphql-yoga/render-graphiql",
  "tsx",
  "tsx/*",
];

loadConnectors(providers);

// A clean dist/ but for the embedded database's template (scripts/build-pgdata.ts builds it once).
mkdirSync("dist", { recursive: true });
for (const stale of readdirSync("dist", { withFileTypes: true })) {
  if (!stale.name.startsWith("pgdata-template")) rmSync(`dist/${stale.name}`, { recursive: true, force: true });
}
const result = await build({
  // main and the CLI; app, config, db/database and log for what builds the service itself from dist/ (bench/data/service.ts).
  entryPoints: { main: "src/main.ts", "cli/index": "src/cli/index.ts", app: "src/app.ts", config: "src/config.ts", "db/database": "src/db/database.ts", log: "src/log.ts" },
  outdir: "dist",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  // A package without an `exports` map is taken in its ES module form where it has one: graphql's
  // CommonJS form, bundled, reached every function through a getter (esbuild's interop), a few per
  // cent of a GraphQL request's CPU.
  mainFields: ["module", "main"],
  sourcemap: true,
  // No comments: one character outside Latin-1 in a file makes V8 keep its whole source as a two-byte
  // string, and the comments had em dashes and arrows (7.3 MB of source at idle, 3 MB without them).
  // Names are kept, so stack traces still read; the source maps point into src/.
  minifyWhitespace: true,
  metafile: true,
  logLevel: "warning",
  // CommonJS packages inside an ESM bundle call require() for Node's own modules.
  banner: { js: 'import { createRequire as __switchyardRequire } from "node:module"; const require = __switchyardRequire(import.meta.url);' },
});
const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith(".js"));
const size = (file: string) => `${(result.metafile.outputs[file].bytes / 1024).toFixed(0)} kB`;
console.log(`dist/: ${outputs.length} files; main.js ${size("dist/main.js")}`);
// `--analyze`: what each file of dist/ holds, largest inputs first.
if (process.argv.includes("--analyze")) {
  const { analyzeMetafile } = await import("esbuild");
  console.log(await analyzeMetafile(result.metafile));
}
