/**
 * A fake GitHub for a GitHub App, following GitHub's documented protocol:
 * - GET /apps/{slug}/installations/new?state= installs the app for the signed-in user's account and
 *   redirects to the app's setup URL with installation_id, setup_action=install and the state (plus a
 *   `code` when the app requests user authorization during installation);
 * - the app authenticates with an RS256 JWT (iss the app id, iat in the past, exp at most 10 minutes
 *   after iat and not passed), checked here with the app's PUBLIC key: GET /app/installations/{id},
 *   POST /app/installations/{id}/access_tokens (201 {token, expires_at, permissions});
 * - POST /login/oauth/access_token exchanges the code for a user token, which GET /user/installations reads;
 * - GET /installation/repositories answers to an unexpired installation token.
 */
import { createPublicKey, generateKeyPairSync, randomBytes, verify } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeInstallation {
  id: number;
  account: { login: string; id: number; type: "User" | "Organization" };
  createdAt: Date;
  /** Users (logins) who can reach it with their user token. */
  users: string[];
  deleted?: boolean;
}

export interface FakeGitHubApp {
  url: string;
  appId: string;
  slug: string;
  privateKey: string;
  /** Where GitHub sends the browser after installing: set it to the service's /oauth/callback. */
  setupUrl: string;
  /** The app has "Request user authorization (OAuth) during installation" on: a `code` comes back too. */
  userAuthorization: boolean;
  /** Who is signed in at GitHub, installing on their own account. */
  signedIn: { login: string; id: number };
  installations: FakeInstallation[];
  /** Installation tokens minted: how long each lives. */
  tokenLifetimeMs: number;
  minted: Array<{ installationId: number; token: string; expiresAt: Date }>;
  /** JWT refusals seen (reason), to assert the service's JWTs were all good. */
  jwtRefusals: string[];
  env(extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

const json = (status: number, value: unknown) => ({ status, body: JSON.stringify(value) });

export async function startFakeGitHubApp(options: { appId?: string; slug?: string } = {}): Promise<FakeGitHubApp> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const publicKeyObject = createPublicKey(publicKey.export({ type: "spki", format: "pem" }));
  const codes = new Map<string, string>();
  const userTokens = new Map<string, string>();
  let nextId = 40_000_000;

  const fake: FakeGitHubApp = {
    url: "",
    appId: options.appId ?? "123456",
    slug: options.slug ?? "switchyard-test",
    privateKey: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    setupUrl: "",
    userAuthorization: false,
    signedIn: { login: "octo-org", id: 9001 },
    installations: [],
    tokenLifetimeMs: 60 * 60_000,
    minted: [],
    jwtRefusals: [],
    env: (extra = {}) => ({
      CONNECTOR_GITHUB_APP_INSTALL_URL: `${fake.url}/apps/{slug}/installations/new`,
      CONNECTOR_GITHUB_APP_TOKEN_URL: `${fake.url}/login/oauth/access_token`,
      CONNECTOR_GITHUB_APP_API_URL: fake.url,
      CONNECTOR_GITHUB_APP_APP_ID: fake.appId,
      CONNECTOR_GITHUB_APP_PRIVATE_KEY: fake.privateKey.replace(/\n/g, "\\n"),
      CONNECTOR_GITHUB_APP_SLUG: fake.slug,
      ...extra,
    }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  /** GitHub's JWT rules, checked with the app's public key. */
  function appAuthenticated(req: IncomingMessage): boolean {
    const refuse = (reason: string) => (fake.jwtRefusals.push(reason), false);
    const jwt = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!jwt) return refuse("no bearer");
    const [h, p, s] = jwt.split(".");
    if (!h || !p || !s) return refuse("not a JWT");
    const header = JSON.parse(Buffer.from(h, "base64url").toString());
    const claims = JSON.parse(Buffer.from(p, "base64url").toString());
    if (header.alg !== "RS256") return refuse("alg");
    if (!verify("RSA-SHA256", Buffer.from(`${h}.${p}`), publicKeyObject, Buffer.from(s, "base64url"))) return refuse("signature");
    const now = Date.now() / 1000;
    if (String(claims.iss) !== fake.appId) return refuse("iss");
    if (!(claims.iat <= now)) return refuse("iat in the future");
    if (!(claims.exp > now) || claims.exp - claims.iat > 600) return refuse("exp");
    return true;
  }

  const installationJson = (i: FakeInstallation) => ({
    id: i.id,
    account: { login: i.account.login, id: i.account.id, type: i.account.type },
    target_type: i.account.type,
    html_url: `https://github.com/settings/installations/${i.id}`,
    app_slug: fake.slug,
    created_at: i.createdAt.toISOString(),
  });

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", fake.url);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString();
    const answer = (() => {
      if (req.method === "GET" && url.pathname === `/apps/${fake.slug}/installations/new`) {
        const installation: FakeInstallation = { id: nextId++, account: { ...fake.signedIn, type: "Organization" }, createdAt: new Date(), users: [fake.signedIn.login] };
        fake.installations.push(installation);
        const to = new URL(fake.setupUrl);
        to.searchParams.set("installation_id", String(installation.id));
        to.searchParams.set("setup_action", "install");
        if (url.searchParams.get("state")) to.searchParams.set("state", url.searchParams.get("state")!);
        if (fake.userAuthorization) {
          const code = randomBytes(10).toString("hex");
          codes.set(code, fake.signedIn.login);
          to.searchParams.set("code", code);
        }
        return { status: 302, location: to.toString() };
      }
      if (req.method === "POST" && url.pathname === "/login/oauth/access_token") return undefined;
      if (req.method === "GET" && url.pathname === "/user/installations") {
        const login = userTokens.get(/^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "");
        if (!login) return json(401, { message: "Bad credentials" });
        const mine = fake.installations.filter((i) => !i.deleted && i.users.includes(login));
        return json(200, { total_count: mine.length, installations: mine.map(installationJson) });
      }
      const one = /^\/app\/installations\/(\d+)(\/access_tokens)?$/.exec(url.pathname);
      if (one) {
        if (!appAuthenticated(req)) return json(401, { message: "A JSON web token could not be decoded" });
        const installation = fake.installations.find((i) => i.id === Number(one[1]) && !i.deleted);
        if (!installation) return json(404, { message: "Not Found" });
        if (!one[2] && req.method === "GET") return json(200, installationJson(installation));
        if (one[2] && req.method === "POST") {
          const token = `ghs_${randomBytes(16).toString("hex")}`;
          const expiresAt = new Date(Date.now() + fake.tokenLifetimeMs);
          fake.minted.push({ installationId: installation.id, token, expiresAt });
          return json(201, { token, expires_at: expiresAt.toISOString(), permissions: { issues: "write", metadata: "read" }, repository_selection: "selected" });
        }
      }
      if (req.method === "GET" && url.pathname === "/installation/repositories") {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
        const minted = fake.minted.find((m) => m.token === token && m.expiresAt.getTime() > Date.now());
        if (!minted) return json(401, { message: "Bad credentials" });
        return json(200, { total_count: 1, repositories: [{ id: 1296269, full_name: "octo-org/Hello-World" }] });
      }
      return json(404, { message: "Not Found" });
    })();
    if (answer === undefined) {
      // The code exchange: client_id, client_secret, code in the form body (client_secret_post).
      const code = new URLSearchParams(raw).get("code") ?? "";
      const login = codes.get(code);
      codes.delete(code);
      const reply = login
        ? (() => {
            const token = `ghu_${randomBytes(16).toString("hex")}`;
            userTokens.set(token, login);
            return { access_token: token, token_type: "bearer", scope: "" };
          })()
        : { error: "bad_verification_code", error_description: "The code passed is incorrect or expired." };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply));
      return;
    }
    if ("location" in answer) res.writeHead(answer.status, { location: answer.location as string }).end();
    else res.writeHead(answer.status, { "content-type": "application/json" }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
