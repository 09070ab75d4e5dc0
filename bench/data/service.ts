/**
 * The real service for the benchmark, compiled (dist/, `npm run build`) and started the way src/main.ts starts it (buildApp + node:http),
 * in a child process of run.ts so autocannon and the server do not share an event loop.
 * Configuration comes from the environment run.ts passes; the port is reported over IPC.
 */
import { createServer } from "node:http";
import { serveToParent } from "./child.ts";

// The compiled service from dist/ (what `npm start` runs), not the TypeScript through tsx.
const dist = new URL("../../dist/", import.meta.url);
const compiled = <T>(path: string): Promise<T> => import(new URL(path, dist).href);
const { buildApp } = await compiled<typeof import("../../src/app.ts")>("app.js");
const { loadConfig } = await compiled<typeof import("../../src/config.ts")>("config.js");
const { openDatabase } = await compiled<typeof import("../../src/db/database.ts")>("db/database.js");
const { createLogger } = await compiled<typeof import("../../src/log.ts")>("log.js");

const config = loadConfig(process.env);
const logger = createLogger(config.logLevel);
if (!config.databaseUrl) throw new Error("the benchmark needs DATABASE_URL");
const database = await openDatabase({ kind: "postgresql", url: config.databaseUrl }, logger);
const app = buildApp({ config, logger, database });
const server = createServer({ requestTimeout: 30_000, headersTimeout: 15_000 }, app.handle);
app.attach(server);
await new Promise<void>((resolve) => server.listen(config.port, "127.0.0.1", resolve));
serveToParent(server, async () => {
  await app.close();
  await database.close();
});
