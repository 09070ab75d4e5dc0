import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Spotify's "Get Recently Played Tracks" as documented
 * (developer.spotify.com/documentation/web-api/reference/get-recently-played): GET
 * /v1/me/player/recently-played with a bearer token, `limit` (≤ 50) and `after` (a Unix time in
 * ms: items played after it, exclusive); answers a cursor-based paging object, newest first, with
 * `cursors.after` the newest item's time in ms (null cursors when there is nothing). A token this
 * fake does not know is answered 401.
 */
export interface FakeSpotify {
  apiUrl: string;
  /** A listener whose token is valid, with no plays yet. */
  listener(token: string): void;
  /** Who has played what: token → plays (any order). */
  play(token: string, trackId: string, playedAt: Date): void;
  /** Requests served, with the token they carried. */
  requests: { token: string; url: URL }[];
  close(): Promise<void>;
}

export async function startFakeSpotify(): Promise<FakeSpotify> {
  const plays = new Map<string, { trackId: string; playedAt: Date }[]>();
  const requests: FakeSpotify["requests"] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    requests.push({ token, url });
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname !== "/v1/me/player/recently-played") return answer(404, { error: { status: 404, message: "Service not found" } });
    if (!plays.has(token)) return answer(401, { error: { status: 401, message: "Invalid access token" } });
    const after = url.searchParams.get("after");
    const limit = Math.min(50, Number(url.searchParams.get("limit") ?? 20));
    const items = plays
      .get(token)!
      .filter((p) => after === null || p.playedAt.getTime() > Number(after))
      .sort((a, b) => b.playedAt.getTime() - a.playedAt.getTime())
      .slice(0, limit)
      .map((p) => ({
        track: { id: p.trackId, name: `Track ${p.trackId}`, uri: `spotify:track:${p.trackId}`, artists: [], album: {} },
        played_at: p.playedAt.toISOString(),
        context: null,
      }));
    answer(200, {
      href: url.toString(),
      limit,
      next: null,
      cursors: items.length ? { after: String(Date.parse(items[0].played_at)), before: String(Date.parse(items.at(-1)!.played_at)) } : null,
      total: items.length,
      items,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    apiUrl: `http://127.0.0.1:${port}/v1`,
    listener(token) {
      if (!plays.has(token)) plays.set(token, []);
    },
    play(token, trackId, playedAt) {
      plays.set(token, [...(plays.get(token) ?? []), { trackId, playedAt }]);
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
