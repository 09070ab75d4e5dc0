import type { IncomingMessage } from "node:http";
import { readBody } from "./node.ts";
import { AppError } from "../errors.ts";

/**
 * Bounds the request bodies being received at once, before any of them is read. A body is read
 * into memory (up to its route's limit, 1 MiB for webhooks and GraphQL) before the request can be
 * authenticated or verified — a webhook's signature covers the body — so without a bound, many
 * unfinished uploads from anyone could hold that much each for as long as they liked.
 *
 * - In all, at most `maxInFlight` bodies are being read: past it, 503 `server_busy`.
 * - From one client address, at most `maxPerAddress`: past it, 429 `rate_limited`.
 * - Each body must have arrived `timeoutMs` after its reading started: past it, 408.
 *
 * Refusals carry Retry-After and close the connection, so the refused body is never read. A
 * request that declares no body (no Content-Length, or 0, and no Transfer-Encoding) is not counted.
 */
export interface BodyGate {
  /** Reads the request's body within the bounds, or refuses (rejects with an AppError) before reading it. */
  read(req: IncomingMessage, ip: string, limitBytes: number): Promise<Buffer>;
  /** Bodies being read now (the `switchyard_http_bodies_in_flight` gauge). */
  inFlight(): number;
}

export interface BodyGateOptions {
  maxInFlight: number;
  maxPerAddress: number;
  timeoutMs: number;
}

const RETRY_AFTER_SECONDS = 5;

export function createBodyGate(options: BodyGateOptions): BodyGate {
  let total = 0;
  // Only addresses with a body being read: bounded by maxInFlight.
  const perAddress = new Map<string, number>();

  const carriesBody = (req: IncomingMessage) => {
    const length = req.headers["content-length"];
    return req.headers["transfer-encoding"] !== undefined || (length !== undefined && Number(length) !== 0);
  };

  return {
    inFlight: () => total,
    async read(req, ip, limitBytes) {
      if (!carriesBody(req)) return readBody(req, limitBytes, options.timeoutMs);
      const mine = perAddress.get(ip) ?? 0;
      if (total >= options.maxInFlight) {
        throw new AppError("SERVER_BUSY", "Too many requests are being received right now; send this one again shortly.", {
          retryAfterSeconds: RETRY_AFTER_SECONDS,
          headers: { connection: "close" },
        });
      }
      if (mine >= options.maxPerAddress) {
        throw new AppError(
          "RATE_LIMITED",
          `This address is already sending ${mine} request bodies at once; wait for them to finish, then send this one again.`,
          { retryAfterSeconds: RETRY_AFTER_SECONDS, headers: { connection: "close" } },
        );
      }
      total++;
      perAddress.set(ip, mine + 1);
      try {
        return await readBody(req, limitBytes, options.timeoutMs);
      } finally {
        total--;
        const left = (perAddress.get(ip) ?? 1) - 1;
        if (left > 0) perAddress.set(ip, left);
        else perAddress.delete(ip);
      }
    },
  };
}
