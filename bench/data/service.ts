/**
 * The real service for the benchmark, started the way src/main.ts starts it (buildApp + node:http),
 * in a child process of run.ts so autocannon and the server do not share an event loop.
 * Configuration comes from the environment run.ts passes; the port is reported over IPC.
 */
import { createServer } from "node:http";
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/db/database.ts";
import { createLogger } from "../../src/log.ts";
import { serveToParent } from "./child.ts";

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
