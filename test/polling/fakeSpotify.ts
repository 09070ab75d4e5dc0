import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Spotify's "Get Recently Played Tracks" as documented
 * (developer.spotify.com/documentation/web-api/reference/get-recently-played): GET
 * /v1/me/player/recently-played with a bearer token, `limit` (≤ 50) and `after` (a Unix time in
 * ms: items played after it, exclusive); answers a cursor-based paging object, newest first, with
 * `cursors.after` the newest item's time in ms (null cursors when there is nothing). A token this
 * fake does not know is answered 401.
 *
 * And the token endpoint's refresh grant (developer.spotify.com/documentation/web-api/tutorials/refreshing-tokens):
 * POST /api/token, form `grant_type=refresh_token&refresh_token=…`, the client's id and secret in
 * Basic auth; answers `{access_token, token_type: "Bearer", expires_in: 3600, scope}` (a refresh
 * token only sometimes: none here), 400 `invalid_grant` for a refresh token it did not issue.
 */
export interface FakeSpotify {
  apiUrl: string;
  /** A listener whose token is valid, with no plays yet. */
  listener(token: string): void;
  /** A refresh token the token endpoint exchanges for `accessToken` (which becomes a valid listener's token). */
  refreshesTo(refreshToken: string, accessToken: string): void;
  /** Forget a token, as when it expires at Spotify: its reads are answered 401. */
  expire(token: string): void;
  /**
   * Spotify's Web API answers 503 Service Unavailable while it is down (the Web API's documented
   * response status codes, developer.spotify.com/documentation/web-api/concepts/api-calls): every read
   * of this token is so answered until `outage(token, false)`.
   */
  outage(token: string, down: boolean): void;
  /** Who has played what: token → plays (any order). */
  play(token: string, trackId: string, playedAt: Date): void;
  /** Requests served, with the token they carried. */
  requests: { token: string; url: URL }[];
  /** Refresh grants asked for, with the client credentials they carried (Basic, decoded). */
  refreshes: { refreshToken: string; client: string }[];
  tokenUrl: string;
  close(): Promise<void>;
}

export async function startFakeSpotify(): Promise<FakeSpotify> {
  const plays = new Map<string, { trackId: string; playedAt: Date }[]>();
  const requests: FakeSpotify["requests"] = [];
  const refreshes: FakeSpotify["refreshes"] = [];
  const refreshTokens = new Map<string, string>();
  const down = new Set<string>();
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    if (url.pathname === "/api/token" && req.method === "POST") {
      let body = "";
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      // RFC 6749 §2.3.1: the id and secret are form-urlencoded before they are joined and base64-encoded.
      const basic = Buffer.from((req.headers.authorization ?? "").replace(/^Basic /, ""), "base64").toString();
      const client = basic.split(":").map((part) => decodeURIComponent(part.replace(/\+/g, " "))).join(":");
      const refreshToken = form.get("refresh_token") ?? "";
      refreshes.push({ refreshToken, client });
      const accessToken = refreshTokens.get(refreshToken);
      res.writeHead(accessToken && form.get("grant_type") === "refresh_token" ? 200 : 400, { "content-type": "application/json" });
      return res.end(JSON.stringify(accessToken ? { access_token: accessToken, token_type: "Bearer", expires_in: 3600, scope: "user-read-recently-played" } : { error: "invalid_grant", error_description: "Invalid refresh token" }));
    }
    const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    requests.push({ token, url });
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname !== "/v1/me/player/recently-played") return answer(404, { error: { status: 404, message: "Service not found" } });
    if (down.has(token)) return answer(503, { error: { status: 503, message: "Service unavailable" } });
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
    tokenUrl: `http://127.0.0.1:${port}/api/token`,
    refreshes,
    outage(token, isDown) {
      if (isDown) down.add(token);
      else down.delete(token);
    },
    refreshesTo(refreshToken, accessToken) {
      refreshTokens.set(refreshToken, accessToken);
      if (!plays.has(accessToken)) plays.set(accessToken, []);
    },
    expire(token) {
      plays.delete(token);
    },
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
