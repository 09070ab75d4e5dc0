/**
 * The two servers the proxy benchmark runs beside Switchyard, each in its own process:
 *
 *   node --import tsx bench/proxy/servers.ts api            # the fake API
 *   node --import tsx bench/proxy/servers.ts pipe <apiUrl>  # the bare node:http pipe in front of it
 *
 * The fake API answers `GET /items` with a 10-item JSON array and `GET /large?bytes=N` with N
 * bytes, streamed with backpressure. The bare pipe is what any proxy must at least do: a
 * keep-alive agent, the token header added, request and answer piped, nothing else. Each prints
 * `listening <port>` once ready.
 */
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { streamBytes } from "../../test/helpers/streamBytes.ts";

const [role, target] = process.argv.slice(2);
const items = JSON.stringify(Array.from({ length: 10 }, (_, i) => ({ id: i + 1, name: `Item ${i + 1}`, description: "A thing the API lists." })));

const api = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://api");
  if (url.pathname === "/large") return streamBytes(res, Number(url.searchParams.get("bytes") ?? 0));
  res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(items)) });
  res.end(items);
});

function pipe(apiUrl: string) {
  const base = new URL(apiUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  return createServer((req, res) => {
    const upstream = request(
      { hostname: base.hostname, port: base.port, path: req.url, method: req.method, agent, headers: { ...req.headers, host: base.host, authorization: "Bearer bench-token" } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
}

const server = role === "pipe" ? pipe(target) : api;
server.keepAliveTimeout = 60_000;
// A clean exit on SIGTERM, so a CPU profile (--cpu-prof) is written.
process.once("SIGTERM", () => process.exit(0));
server.listen(0, "127.0.0.1", () => console.log(`listening ${(server.address() as AddressInfo).port}`));
