import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { scaled } from "./timing.ts";

/** One request as the operator's server saw it. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** What the receiver answered. */
  status: number;
}

/** A status, or a status with headers and a body (bytes as they are: a Buffer may hold anything). */
type Answer = number | { status: number; headers?: Record<string, string>; body?: string | Buffer };

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /**
   * Decides the answer to each request (default 200). `n` counts requests with the same
   * `webhook-id` so far, starting at 1 — "fail the first two tries of every event" is `n <= 2 ? 500 : 200`.
   */
  respond(answer: (request: ReceivedRequest, n: number) => Answer | Promise<Answer>): void;
  /** Resolves once `predicate` holds for the requests so far; rejects after `timeoutMs`. */
  waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<ReceivedRequest[]>;
  byEventId(id: string): ReceivedRequest[];
  /** An answer that waits until `release(id)`: a delivery held in flight. */
  hold(id: string): Promise<Answer>;
  release(id: string, status?: number): void;
  /** Event ids whose request is being held. */
  holding: Map<string, (status: number) => void>;
  close(): Promise<void>;
}

/** The operator's server: node:http on 127.0.0.1:0, recording every request, answering as scripted. */
export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const perEvent = new Map<string, number>();
  let answer: Parameters<Receiver["respond"]>[0] = () => 200;
  const waiters = new Set<() => void>();
  const holding = new Map<string, (status: number) => void>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const request: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        status: 0,
      };
      const id = String(req.headers["webhook-id"] ?? "");
      const n = (perEvent.get(id) ?? 0) + 1;
      perEvent.set(id, n);
      const decided = await answer(request, n);
      const reply = typeof decided === "number" ? { status: decided } : decided;
      request.status = reply.status;
      requests.push(request);
      res.writeHead(reply.status, { "content-type": "text/plain", ...reply.headers });
      res.end(reply.body ?? (reply.status < 300 ? "ok" : `status ${reply.status}`));
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    respond(next) {
      answer = next;
    },
    waitFor(predicate, unscaledMs = 20_000) {
      const timeoutMs = scaled(unscaledMs);
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(requests)) return;
          cleanup();
          resolve(requests);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`the receiver did not see what was expected within ${timeoutMs} ms (${requests.length} requests so far)`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    byEventId: (id) => requests.filter((r) => r.headers["webhook-id"] === id),
    holding,
    hold(id) {
      return new Promise<Answer>((resolve) => {
        holding.set(id, (status) => resolve(status));
        for (const wake of waiters) wake();
      });
    },
    release(id, status = 200) {
      holding.get(id)?.(status);
      holding.delete(id);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
