import type { IncomingMessage, ServerResponse } from "node:http";
import { HttpProblem } from "./problem.ts";
import type { HttpResponse } from "./types.ts";

/** Reads a request body up to `limitBytes`; past that, 413 without reading the rest into memory. */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const tooLarge = () =>
    new HttpProblem(413, "payload_too_large", `The request body is larger than ${limitBytes} bytes.`, { connection: "close" });
  const declared = Number(req.headers["content-length"]);
  if (declared > limitBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        req.removeAllListeners("data");
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export function writeResponse(res: ServerResponse, response: HttpResponse): void {
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

export function clientIp(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? "unknown";
}
