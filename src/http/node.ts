import ipaddr from "ipaddr.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isIPv4 } from "node:net";
import { pipeline, Readable } from "node:stream";
import { AppError } from "../errors.ts";
import type { HttpResponse } from "./types.ts";

/** The client went away before its request body had arrived: nobody is left to answer (logged as 499). */
export class ClientAbortedError extends Error {
  constructor() {
    super("the client closed the connection before its request body arrived");
    this.name = "ClientAbortedError";
  }
}

/**
 * Reads a request body up to `limitBytes`; past that, 413 without reading the rest into memory.
 * With `timeoutMs`, a body that has not fully arrived by then is 408 (and the connection closed):
 * a client trickling bytes does not hold its buffer for as long as it likes. A client that hangs
 * up midway rejects with ClientAbortedError.
 */
export function readBody(req: IncomingMessage, limitBytes: number, timeoutMs?: number): Promise<Buffer> {
  const tooLarge = () =>
    new AppError("PAYLOAD_TOO_LARGE", `The request body is larger than ${limitBytes} bytes.`, { headers: { connection: "close" } });
  const declared = Number(req.headers["content-length"]);
  if (declared > limitBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.removeListener("data", onData);
      outcome();
    };
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            settle(() => {
              req.resume();
              reject(new AppError("REQUEST_TIMEOUT", `The request body did not arrive within ${timeoutMs} ms.`, { headers: { connection: "close" } }));
            });
          }, timeoutMs);
    function onData(chunk: Buffer) {
      size += chunk.length;
      if (size > limitBytes) {
        settle(() => {
          req.resume();
          reject(tooLarge());
        });
        return;
      }
      chunks.push(chunk);
    }
    req.on("data", onData);
    req.on("end", () => settle(() => resolve(Buffer.concat(chunks))));
    req.on("error", (error) => settle(() => reject(req.complete ? error : new ClientAbortedError())));
    req.on("close", () => {
      if (!req.complete) settle(() => reject(new ClientAbortedError()));
    });
  });
}

export function writeResponse(res: ServerResponse, response: HttpResponse): void {
  if (response.body instanceof Readable) {
    // Streamed as it arrives (the proxy): the headers given, nothing added. A client that goes
    // away ends the pipeline, which destroys the source (the provider's answer) too; a source
    // that fails midway cuts the connection (the status line is already out).
    res.writeHead(response.status, response.headers);
    pipeline(response.body, res, (error) => {
      if (error) res.destroy();
    });
    return;
  }
  // An explicit length: writeHead() commits the headers, after which Node would fall back to
  // chunked encoding — an extra frame around every body.
  const length = response.body === undefined ? 0 : Buffer.byteLength(response.body);
  res.writeHead(response.status, { "x-content-type-options": "nosniff", "content-length": String(length), ...response.headers });
  res.end(response.body);
}

/** Writes a fetch Response (from yoga) to node, streaming the body (SSE subscriptions stay open). */
export async function writeFetchResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name === "set-cookie") return;
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  // A JSON result is one finished buffer: skip the web stream reader (a third of this function's cost).
  if (response.headers.get("content-type")?.includes("json")) {
    const body = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  let closed = false;
  res.once("close", () => {
    closed = true;
    reader.cancel().catch(() => {});
  });
  for (;;) {
    const { done, value } = await reader.read();
    if (done || closed) break;
    // A client that goes away while we wait for "drain" never drains: wait for either.
    if (!res.write(value)) await new Promise((resolve) => (res.once("drain", resolve), res.once("close", resolve)));
  }
  res.end();
}

/**
 * The caller's address, for rate limits and logs. Behind `trustProxyHops` reverse proxies (TRUST_PROXY)
 * it is read from X-Forwarded-For, counting that many entries from the right: each proxy appends the
 * address it saw, so entries further left were written by the client and prove nothing. Like
 * Express's numeric `trust proxy`; with fewer entries than hops, the leftmost one is taken.
 * IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is shown as IPv4, so one client has one spelling.
 */
export function clientIp(req: IncomingMessage, trustProxyHops: number): string {
  const socketAddress = req.socket.remoteAddress ?? "unknown";
  if (trustProxyHops <= 0) return normalizeIp(socketAddress);
  const forwarded = req.headers["x-forwarded-for"];
  const hops = (Array.isArray(forwarded) ? forwarded.join(",") : (forwarded ?? ""))
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  // [client, proxy1, …, proxyN-1] + the socket (the last proxy): the one `trustProxyHops` back.
  const chain = [...hops, socketAddress];
  const picked = chain[Math.max(0, chain.length - 1 - trustProxyHops)];
  // A forged entry that is not an address at all is not believed.
  return ipaddr.isValid(picked) ? normalizeIp(picked) : normalizeIp(socketAddress);
}

/**
 * An address as one spelling per client. A plain dotted IPv4 address (what the socket gives for
 * every IPv4 client) is already that, and is returned as it is: `isIPv4` accepts only that form, for
 * which ipaddr's parse and print give back the same text, at 30 ns against 2 µs (ipaddr was 1.2 % of
 * the service's CPU at the maximum forwarding rate; docs/benchmarks.md). Anything else (IPv6,
 * IPv4-mapped IPv6, a forwarded `0x7f.1`) goes through ipaddr.
 */
function normalizeIp(address: string): string {
  if (isIPv4(address)) return address;
  return ipaddr.isValid(address) ? ipaddr.process(address).toString() : address;
}
