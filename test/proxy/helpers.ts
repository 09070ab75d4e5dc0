import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { Writable } from "node:stream";
import type { TestApp } from "../helpers/testApp.ts";

/** A request as any HTTP client may send it (fetch refuses hop-by-hop headers and odd paths). */
export function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string | string[]>; body?: Buffer | string | AsyncIterable<Buffer> } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    // The path exactly as given: a URL object would resolve `..` and `%2e%2e` before sending.
    const { hostname, port } = new URL(url);
    const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
    const req = httpRequest({ hostname, port, path, method: options.method ?? "GET", headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    const body = options.body;
    if (body === undefined || typeof body === "string" || Buffer.isBuffer(body)) {
      req.end(body);
      return;
    }
    (async () => {
      for await (const chunk of body) if (!req.write(chunk)) await new Promise((r) => req.once("drain", r));
      req.end();
    })().catch(reject);
  });
}

/** `count` chunks of `size` bytes, made as they are read (a large upload without holding it). */
export async function* chunks(count: number, size = 64 * 1024): AsyncIterable<Buffer> {
  const chunk = Buffer.alloc(size, 0x62);
  for (let i = 0; i < count; i++) yield chunk;
}

/** Log lines written by the app's pino logger, kept in memory. */
export function logCapture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => lines.join("") };
}

/** Stores a connection directly (as a completed flow would), for connectors no fake serves here. */
export async function insertConnection(
  app: TestApp,
  row: { deploymentId: string; connector: string; account: string; accessToken: string; status?: "ACTIVE" | "REAUTH_REQUIRED" | "DISCONNECTED"; params?: object; metadata?: object },
) {
  return app.database.prisma.connectedAccount.create({
    data: {
      deploymentId: row.deploymentId,
      connector: row.connector,
      account: row.account,
      externalId: `ext-${row.account}`,
      accessTokenEncrypted: app.app.box.seal(row.accessToken),
      scopes: ["read"],
      status: row.status ?? "ACTIVE",
      params: row.params ?? {},
      metadata: row.metadata ?? {},
    },
  });
}
