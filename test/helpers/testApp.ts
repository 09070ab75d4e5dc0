import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import type { Logger } from "pino";
import { print } from "graphql";
import { type App, buildApp } from "../../src/app.ts";
import type { Clock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { type Database, openDatabase } from "../../src/db/database.ts";
import type { DeliveryWorker } from "../../src/delivery/worker.ts";
import { createLogger } from "../../src/log.ts";
import { createTestDatabase } from "./database.ts";

export interface Caller {
  token?: string;
  apiKey?: string;
  headers?: Record<string, string>;
}

export interface GraphQLResult<T> {
  data?: T | null;
  errors?: { message: string; path?: string[]; extensions?: { code?: string; [key: string]: unknown } }[];
}

export interface TestApp {
  url: string;
  app: App;
  database: Database;
  server: Server;
  /** The delivery worker, when started with `{ worker: true }` (main.ts starts it in the real process). */
  worker?: DeliveryWorker;
  /** The PostgreSQL database of this app (undefined on PGlite), for tests that attach a second process to it. */
  databaseUrl?: string;
  /** Runs a typed document over real HTTP. */
  gql<T, V>(document: TypedDocumentNode<T, V> | string, variables?: V, caller?: Caller): Promise<GraphQLResult<T>>;
  close(): Promise<void>;
}

/**
 * The real service on a real port (0: any free one), on this file's own database. `env` adds
 * or overrides configuration exactly as the process environment would.
 */
export async function startTestApp(env: Record<string, string> = {}, options: { worker?: boolean; poller?: boolean; clock?: Clock; logger?: Logger } = {}): Promise<TestApp> {
  const db = await createTestDatabase({ migrated: true });
  const server = createServer();
  // Longer than any client's idle keep-alive: starting another embedded database blocks the event
  // loop for seconds, after which Node's default 5 s could close a socket the client is reusing
  // (ECONNRESET on the next request).
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({
    NODE_ENV: "test",
    PUBLIC_URL: url,
    ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    PASSWORD_HASH_COST: "10",
    // Every test signs up from 127.0.0.1; the sign-up limit has its own test.
    SIGNUP_RATE_LIMIT_PER_HOUR: "10000",
    ...env,
  });
  const logger = options.logger ?? createLogger(config.logLevel);
  const database = await openDatabase(db.target.kind === "postgresql" ? { ...db.target, statementTimeoutMs: config.databaseStatementTimeoutMs } : db.target, logger);
  const app = buildApp({ config, logger, database, clock: options.clock });
  server.on("request", app.handle);
  app.attach(server);
  const worker = options.worker ? app.createDeliveryWorker() : undefined;
  worker?.start();
  // Polls providers that do not push (Gmail without Pub/Sub), every POLL_INTERVAL, as main.ts does.
  const poller = options.poller ? app.createPoller() : undefined;
  poller?.start();

  return {
    url,
    app,
    database,
    server,
    worker,
    databaseUrl: db.url,
    gql: graphqlClient(url),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await poller?.stop();
      await worker?.stop();
      await app.close();
      await database.close();
      await db.drop();
    },
  };
}

/** Runs typed documents against a service's /graphql over real HTTP, as the given caller. */
export function graphqlClient(url: string): TestApp["gql"] {
  return async (document, variables, caller = {}) => {
    const response = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(caller.token ? { authorization: `Bearer ${caller.token}` } : {}),
        ...(caller.apiKey ? { "x-api-key": caller.apiKey } : {}),
        ...caller.headers,
      },
      body: JSON.stringify({ query: typeof document === "string" ? document : print(document), variables }),
    });
    return (await response.json()) as GraphQLResult<never>;
  };
}

/** The data of a result that must have succeeded; otherwise the errors, readably. */
export function ok<T>(result: GraphQLResult<T>): T {
  if (result.errors?.length || !result.data) {
    throw new Error(`GraphQL errors: ${JSON.stringify(result.errors, null, 2)}`);
  }
  return result.data;
}

export function errorCode(result: GraphQLResult<unknown>): string | undefined {
  return result.errors?.[0]?.extensions?.code;
}
