/**
 * A fake GitHub REST API (api.github.com) for the proxy: a real node:http server on 127.0.0.1:0
 * that accepts only tokens the fake GitHub OAuth server issued (test/helpers/fakeProviders/github.ts).
 *
 * Kept from GitHub's documentation:
 * - `Authorization: Bearer <token>` (or `token <token>`); a bad token is 401
 *   `{"message":"Bad credentials","documentation_url":…}`
 *   (docs.github.com/en/rest/authentication/authenticating-to-the-rest-api).
 * - `GET /user` answers the authenticated user (docs.github.com/en/rest/users/users#get-the-authenticated-user).
 * - `GET /repos/{owner}/{repo}/issues` lists issues; `POST` creates one, 201 with the issue
 *   (docs.github.com/en/rest/issues/issues).
 * - A rate-limited answer is 403 or 429 with `x-ratelimit-remaining: 0` and `x-ratelimit-reset`
 *   in UTC epoch seconds, or with `retry-after` in seconds
 *   (docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api).
 *
 * The rest (`/upload`, `/large`, `/slow`, `/flaky`, `/redirect`, `/headers`) is test scaffolding:
 * what the proxy must do with any provider's answer.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { FakeGitHub } from "../helpers/fakeProviders/github.ts";
import { streamBytes } from "../helpers/streamBytes.ts";

export interface SeenRequest {
  method: string;
  /** The request target as received (path and query, still encoded). */
  url: string;
  headers: IncomingHttpHeaders;
  token: string | undefined;
  bodyBytes: number;
}

export interface FakeGitHubApi {
  url: string;
  seen: SeenRequest[];
  /** `/flaky` answers `status` (with `retry-after` when set) this many more times, then 200. */
  flaky: { failures: number; retryAfter?: string; status: number };
  close(): Promise<void>;
}

const json = (value: unknown) => JSON.stringify(value);

export async function startFakeGitHubApi(github: FakeGitHub): Promise<FakeGitHubApi> {
  const seen: SeenRequest[] = [];
  const flaky = { failures: 0, retryAfter: "0" as string | undefined, status: 503 };
  const tokenOf = (headers: IncomingHttpHeaders) => /^(?:Bearer|token)\s+(\S+)$/i.exec(String(headers.authorization ?? "").trim())?.[1];
  const grantOf = (token: string | undefined) =>
    github.grants.find((g) => g.accessToken === token && !g.revoked && (g.expiresAt === undefined || g.expiresAt > Date.now()));

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const token = tokenOf(req.headers);
    const hash = createHash("sha256");
    let bodyBytes = 0;
    req.on("data", (chunk: Buffer) => {
      bodyBytes += chunk.length;
      hash.update(chunk);
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, token, bodyBytes });
      const send = (status: number, body: string, headers: Record<string, string | string[]> = {}) => {
        res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
        res.end(req.method === "HEAD" ? undefined : body);
      };
      const grant = grantOf(token);
      if (!grant) return send(401, json({ message: "Bad credentials", documentation_url: "https://docs.github.com/rest", status: "401" }));
      const path = url.pathname;
      if (path === "/user") {
        const u = grant.identity;
        return send(200, json({ login: u.login, id: u.id, type: "User", name: u.name, email: u.email, html_url: `https://github.com/${u.login}` }));
      }
      const issues = /^\/repos\/([^/]+)\/([^/]+)\/issues$/.exec(path);
      if (issues && (req.method === "GET" || req.method === "HEAD")) return send(200, json([{ id: 1, number: 1347, title: "Found a bug", state: "open" }]), { "x-ratelimit-remaining": "4999" });
      if (issues && req.method === "POST") return send(201, json({ id: 2, number: 1348, state: "open", received: bodyBytes }));
      if (path === "/upload") return send(200, json({ bytes: bodyBytes, sha256: hash.digest("hex") }));
      if (path === "/headers") {
        return send(200, json({ ok: true }), {
          "set-cookie": ["session=provider-cookie; HttpOnly"],
          "x-custom": "kept",
          "x-switchyard-error": "true",
          connection: "keep-alive, x-hop",
          "x-hop": "dropped",
          "keep-alive": "timeout=5",
        });
      }
      if (path === "/redirect") return send(302, "", { location: "http://127.0.0.1:1/stolen?via=redirect" });
      if (path === "/slow") {
        const timer = setTimeout(() => send(200, json({ slow: true })), Number(url.searchParams.get("ms") ?? 2000));
        res.on("close", () => clearTimeout(timer));
        return;
      }
      if (path === "/flaky") {
        if (flaky.failures > 0) {
          flaky.failures--;
          return send(flaky.status, json({ message: "Service Unavailable" }), flaky.retryAfter === undefined ? {} : { "retry-after": flaky.retryAfter });
        }
        return send(200, json({ ok: true }));
      }
      if (path === "/ratelimited") {
        // Reset in the past: retry at once.
        return send(429, json({ message: "API rate limit exceeded" }), { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) - 1) });
      }
      if (path === "/large") return streamBytes(res, Number(url.searchParams.get("bytes") ?? 1024));
      send(404, json({ message: "Not Found", documentation_url: "https://docs.github.com/rest" }));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    flaky,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
