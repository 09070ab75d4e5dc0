/**
 * Fake Google for the Gmail connector: OAuth 2.0 (accounts.google.com/o/oauth2/v2/auth +
 * oauth2.googleapis.com/token), the Gmail API parts the connector reads (users.getProfile,
 * users.history.list, users.messages.get, users.watch) over per-address mailboxes you can put mail
 * in, the JWKS Google signs Pub/Sub push tokens with (/oauth2/v3/certs), and signed pushes.
 *
 * Wire details kept from Google: PKCE S256; redirect_uri required in the exchange; a refresh_token
 * only for access_type=offline, and not resent on refresh; errors `{error, error_description}` with
 * 400/401; API errors `{error:{code,message,status}}`; history ids are increasing decimal strings
 * and a too-old startHistoryId is a 404; push JWTs are RS256 with iss https://accounts.google.com.
 */
import { createSign, generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";
import { jsonReply, startFakeOAuthServer, type FakeOAuthOptions, type FakeOAuthServer, type FakeRequest, type Grant, type RouteContext, type TokenErrorKind } from "./oauthServer.ts";
import type { SignedRequest } from "./signedRequest.ts";

export interface FakeGoogleIdentity {
  email: string;
}

export interface FakeGoogleOptions extends FakeOAuthOptions {
  identity?: Partial<FakeGoogleIdentity>;
  /** The push subscription's audience; it is Switchyard's Gmail webhook secret. */
  pushAudience?: string;
  /** The service account Pub/Sub signs push tokens as. */
  pushServiceAccount?: string;
}

export interface FakeMessageInput {
  /** The mailbox (defaults to the current identity's address). */
  mailbox?: string;
  from?: string;
  to?: string;
  subject?: string;
  snippet?: string;
  labelIds?: string[];
}

export interface FakeMessage {
  id: string;
  threadId: string;
  labelIds: string[];
  historyId: string;
  internalDate: string;
  snippet: string;
  headers: Array<{ name: string; value: string }>;
}

interface Mailbox {
  historyId: bigint;
  /** History before this id is gone (a startHistoryId below it answers 404). */
  floor: bigint;
  history: Array<{ id: string; messages: Array<{ id: string; threadId: string }>; messagesAdded: Array<{ message: { id: string; threadId: string; labelIds: string[] } }> }>;
  messages: Map<string, FakeMessage>;
}

export interface PushJwtOptions {
  audience?: string;
  email?: string;
  emailVerified?: boolean;
  issuer?: string;
  issuedAt?: Date;
  expiresInSeconds?: number;
}

export interface FakeGoogle extends FakeOAuthServer<FakeGoogleIdentity> {
  apiUrl: string;
  jwksUrl: string;
  pushAudience: string;
  pushServiceAccount: string;
  /** users.watch calls received. */
  watchRequests: Array<{ mailbox: string; body: Record<string, unknown> }>;
  /** users.stop calls received (the mailboxes). */
  stopRequests: string[];
  env(): Record<string, string>;
  /** A mail arriving in the inbox (labels INBOX, UNREAD, CATEGORY_PERSONAL). */
  receiveEmail(input?: FakeMessageInput): FakeMessage;
  /** A mail the mailbox sent (label SENT). */
  sendEmail(input?: FakeMessageInput): FakeMessage;
  addMessage(input: FakeMessageInput & { labelIds: string[] }): FakeMessage;
  deleteMessage(id: string, mailbox?: string): void;
  /** Current historyId of a mailbox. */
  historyId(mailbox?: string): string;
  /** Drop all history so far: older startHistoryIds answer 404. */
  forgetHistory(mailbox?: string): void;
  /** A Pub/Sub push token signed with the current key. */
  signPushJwt(opts?: PushJwtOptions): string;
  /** Start signing with a new key (kept alongside the old ones in the JWKS). */
  rotateSigningKey(): void;
  /** A signed push for the mailbox's current historyId. */
  push(opts?: { emailAddress?: string; historyId?: string; messageId?: string } & PushJwtOptions): SignedRequest;
}

const GOOGLE_ERRORS: Record<TokenErrorKind, { status: number; error: string; description: string }> = {
  invalid_client: { status: 401, error: "invalid_client", description: "Unauthorized" },
  invalid_grant: { status: 400, error: "invalid_grant", description: "Bad Request" },
  invalid_refresh_token: { status: 400, error: "invalid_grant", description: "Token has been expired or revoked." },
  redirect_uri_mismatch: { status: 400, error: "redirect_uri_mismatch", description: "Bad Request" },
  invalid_request: { status: 400, error: "invalid_request", description: "Invalid request." },
  unsupported_grant_type: { status: 400, error: "unsupported_grant_type", description: "Invalid grant_type." },
};

function apiError(code: number, message: string, status: string) {
  return jsonReply(code, { error: { code, message, errors: [{ message, domain: "global", reason: status.toLowerCase() }], status } });
}

/** Pub/Sub push body, as delivered (both camelCase and snake_case ids, like the real service). */
export function gmailPush(
  notification: { emailAddress: string; historyId: string | number },
  jwt: string,
  opts: { messageId?: string; publishTime?: Date; subscription?: string } = {},
): SignedRequest {
  const messageId = opts.messageId ?? String(BigInt(`0x${randomBytes(6).toString("hex")}`));
  const publishTime = (opts.publishTime ?? new Date()).toISOString();
  const data = Buffer.from(JSON.stringify({ emailAddress: notification.emailAddress, historyId: Number(notification.historyId) })).toString("base64");
  const body = JSON.stringify({
    message: { data, messageId, message_id: messageId, publishTime, publish_time: publishTime, attributes: {} },
    subscription: opts.subscription ?? "projects/switchyard-test/subscriptions/gmail-push",
  });
  return {
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${jwt}`,
      "user-agent": "APIs-Google; (+https://developers.google.com/webmasters/APIs-Google.html)",
      from: "noreply@google.com",
    },
    body,
  };
}

export async function startFakeGoogle(opts: FakeGoogleOptions = {}): Promise<FakeGoogle> {
  const identity: FakeGoogleIdentity = { email: "alice@example.com", ...opts.identity };
  const pushAudience = opts.pushAudience ?? "fake-gmail-push-audience";
  const pushServiceAccount = opts.pushServiceAccount ?? "gmail-push@switchyard-test.iam.gserviceaccount.com";
  const mailboxes = new Map<string, Mailbox>();
  const watchRequests: FakeGoogle["watchRequests"] = [];
  const stopRequests: string[] = [];
  const signingKeys: Array<{ kid: string; privateKey: KeyObject; publicKey: KeyObject }> = [];
  const newKey = () => {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    signingKeys.push({ kid: randomBytes(20).toString("hex"), privateKey, publicKey });
  };
  newKey();

  const mailbox = (address: string): Mailbox => {
    const key = address.toLowerCase();
    let box = mailboxes.get(key);
    if (!box) {
      box = { historyId: 9_876_500n, floor: 0n, history: [], messages: new Map() };
      mailboxes.set(key, box);
    }
    return box;
  };

  // Each Gmail route: authenticated, gmail-scoped, against the token owner's mailbox.
  const gmailRoute =
    (handler: (req: FakeRequest, box: Mailbox, grant: Grant<FakeGoogleIdentity>, params: string[]) => ReturnType<typeof jsonReply>) =>
    (req: FakeRequest, ctx: RouteContext<FakeGoogleIdentity>, params: string[]) => {
      const grant = ctx.authenticate(req);
      if (!grant) return apiError(401, "Request had invalid authentication credentials. Expected OAuth 2 access token.", "UNAUTHENTICATED");
      if (!grant.scopes.some((s) => s.startsWith("https://www.googleapis.com/auth/gmail.") || s === "https://mail.google.com/")) {
        return apiError(403, "Request had insufficient authentication scopes.", "PERMISSION_DENIED");
      }
      if (params[0] !== undefined && params[0] !== "me" && params[0].toLowerCase() !== grant.identity.email.toLowerCase()) {
        return apiError(403, "Delegation denied.", "PERMISSION_DENIED");
      }
      return handler(req, mailbox(grant.identity.email), grant, params);
    };

  const server = await startFakeOAuthServer<FakeGoogleIdentity>(
    "google",
    {
      displayName: "Google",
      authorizePath: "/o/oauth2/v2/auth",
      tokenPath: "/token",
      scopeParams: ["scope"],
      requireResponseType: true,
      requireRedirectUriOnExchange: true,
      clientAuthMethods: ["client_secret_post", "client_secret_basic"],
      acceptJsonBody: true,
      accessTokenTtlSeconds: 3599,
      refreshTokens: "keep",
      tokenSuccess: (grant) =>
        jsonReply(200, {
          access_token: grant.accessToken,
          expires_in: 3599,
          // Only the first, offline grant carries the refresh token; refreshes never resend it.
          ...(grant.grantType === "authorization_code" && grant.authorizeQuery.get("access_type") === "offline" && grant.refreshToken
            ? { refresh_token: grant.refreshToken }
            : {}),
          scope: grant.scopes.join(" "),
          token_type: "Bearer",
        }),
      tokenError: (kind) => {
        const e = GOOGLE_ERRORS[kind];
        return jsonReply(e.status, { error: e.error, error_description: e.description });
      },
      routes: [
        {
          method: "GET",
          path: "/oauth2/v3/certs",
          handle: () =>
            jsonReply(200, {
              keys: signingKeys.map(({ kid, publicKey }) => ({ ...publicKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" })),
            }),
        },
        {
          method: "GET",
          path: /^\/gmail\/v1\/users\/([^/]+)\/profile$/,
          handle: gmailRoute((_req, box, grant) =>
            jsonReply(200, { emailAddress: grant.identity.email, messagesTotal: box.messages.size, threadsTotal: box.messages.size, historyId: String(box.historyId) }),
          ),
        },
        {
          method: "GET",
          path: /^\/gmail\/v1\/users\/([^/]+)\/history$/,
          handle: gmailRoute((req, box) => {
            const start = req.query.get("startHistoryId") ?? "";
            if (!/^\d+$/.test(start)) return apiError(400, "Invalid startHistoryId", "INVALID_ARGUMENT");
            if (BigInt(start) < box.floor) return apiError(404, "Requested entity was not found.", "NOT_FOUND");
            const maxResults = Math.min(Number(req.query.get("maxResults") ?? 100) || 100, 500);
            const offset = Number(req.query.get("pageToken") ?? 0) || 0;
            const types = req.query.getAll("historyTypes");
            const matching = box.history.filter((h) => BigInt(h.id) > BigInt(start) && (types.length === 0 || types.includes("messageAdded")));
            const page = matching.slice(offset, offset + maxResults);
            return jsonReply(200, {
              ...(page.length ? { history: page } : {}),
              ...(offset + maxResults < matching.length ? { nextPageToken: String(offset + maxResults) } : {}),
              historyId: String(box.historyId),
            });
          }),
        },
        {
          method: "GET",
          path: /^\/gmail\/v1\/users\/([^/]+)\/messages\/([^/]+)$/,
          handle: gmailRoute((req, box, _grant, params) => {
            const message = box.messages.get(params[1]);
            if (!message) return apiError(404, "Requested entity was not found.", "NOT_FOUND");
            const wanted = req.query.getAll("metadataHeaders").map((h) => h.toLowerCase());
            const headers = wanted.length ? message.headers.filter((h) => wanted.includes(h.name.toLowerCase())) : message.headers;
            return jsonReply(200, {
              id: message.id,
              threadId: message.threadId,
              labelIds: message.labelIds,
              snippet: message.snippet,
              historyId: message.historyId,
              internalDate: message.internalDate,
              sizeEstimate: 2048,
              payload: { partId: "", mimeType: "multipart/alternative", filename: "", headers },
            });
          }),
        },
        {
          method: "POST",
          path: /^\/gmail\/v1\/users\/([^/]+)\/watch$/,
          handle: gmailRoute((req, box, grant) => {
            let body: Record<string, unknown> = {};
            try {
              body = JSON.parse(req.rawBody.toString("utf8") || "{}") as Record<string, unknown>;
            } catch {
              return apiError(400, "Invalid JSON payload received.", "INVALID_ARGUMENT");
            }
            if (typeof body.topicName !== "string" || !/^projects\/[^/]+\/topics\/[^/]+$/.test(body.topicName)) {
              return apiError(400, "Invalid topicName", "INVALID_ARGUMENT");
            }
            watchRequests.push({ mailbox: grant.identity.email, body });
            return jsonReply(200, { historyId: String(box.historyId), expiration: String(Date.now() + 7 * 24 * 3600 * 1000) });
          }),
        },
        {
          // users.stop: an empty 204 (https://developers.google.com/gmail/api/reference/rest/v1/users/stop).
          method: "POST",
          path: /^\/gmail\/v1\/users\/([^/]+)\/stop$/,
          handle: gmailRoute((_req, _box, grant) => {
            stopRequests.push(grant.identity.email);
            return { status: 204, headers: {}, body: "" };
          }),
        },
      ],
    },
    identity,
    opts,
  );

  const current = () => server.getIdentity().email;

  function addMessage(input: FakeMessageInput & { labelIds: string[] }): FakeMessage {
    const address = input.mailbox ?? current();
    const box = mailbox(address);
    box.historyId += 7n; // Gmail history ids grow, not necessarily by one
    const id = (0x18c2f0a4b5d6e7n + box.historyId).toString(16);
    const sent = input.labelIds.includes("SENT");
    const message: FakeMessage = {
      id,
      threadId: id,
      labelIds: input.labelIds,
      historyId: String(box.historyId),
      internalDate: String(Date.now()),
      snippet: input.snippet ?? "Hello from the fake mailbox",
      headers: [
        { name: "From", value: input.from ?? (sent ? address : "Bob Example <bob@example.org>") },
        { name: "To", value: input.to ?? (sent ? "Bob Example <bob@example.org>" : address) },
        { name: "Subject", value: input.subject ?? "Hello" },
        { name: "Date", value: new Date().toUTCString().replace("GMT", "+0000") },
      ],
    };
    box.messages.set(id, message);
    box.history.push({
      id: String(box.historyId),
      messages: [{ id, threadId: id }],
      messagesAdded: [{ message: { id, threadId: id, labelIds: input.labelIds } }],
    });
    return message;
  }

  function signPushJwt(o: PushJwtOptions = {}): string {
    const key = signingKeys[signingKeys.length - 1];
    const iat = Math.floor((o.issuedAt ?? new Date()).getTime() / 1000);
    const header = { alg: "RS256", kid: key.kid, typ: "JWT" };
    const claims = {
      aud: o.audience ?? pushAudience,
      azp: "113774264463038321964",
      email: o.email ?? pushServiceAccount,
      email_verified: o.emailVerified ?? true,
      exp: iat + (o.expiresInSeconds ?? 3600),
      iat,
      iss: o.issuer ?? "https://accounts.google.com",
      sub: "113774264463038321964",
    };
    const input = `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
    const signature = createSign("RSA-SHA256").update(input).sign(key.privateKey).toString("base64url");
    return `${input}.${signature}`;
  }

  const jwksUrl = `${server.url}/oauth2/v3/certs`;
  return Object.assign(server, {
    apiUrl: server.url,
    jwksUrl,
    pushAudience,
    pushServiceAccount,
    watchRequests,
    stopRequests,
    env: () => ({
      CONNECTOR_GMAIL_AUTHORIZE_URL: server.authorizeUrl,
      CONNECTOR_GMAIL_TOKEN_URL: server.tokenUrl,
      CONNECTOR_GMAIL_API_URL: server.url,
      CONNECTOR_GMAIL_JWKS_URL: jwksUrl,
      CONNECTOR_GMAIL_CLIENT_ID: server.clientId,
      CONNECTOR_GMAIL_CLIENT_SECRET: server.clientSecret,
      CONNECTOR_GMAIL_WEBHOOK_SECRET: pushAudience,
    }),
    receiveEmail: (input: FakeMessageInput = {}) => addMessage({ ...input, labelIds: input.labelIds ?? ["INBOX", "UNREAD", "CATEGORY_PERSONAL"] }),
    sendEmail: (input: FakeMessageInput = {}) => addMessage({ ...input, labelIds: input.labelIds ?? ["SENT"] }),
    addMessage,
    deleteMessage(id: string, address?: string) {
      mailbox(address ?? current()).messages.delete(id);
    },
    historyId: (address?: string) => String(mailbox(address ?? current()).historyId),
    forgetHistory(address?: string) {
      const box = mailbox(address ?? current());
      box.floor = box.historyId;
      box.history = [];
    },
    signPushJwt,
    rotateSigningKey: newKey,
    push(o: { emailAddress?: string; historyId?: string; messageId?: string } & PushJwtOptions = {}) {
      const emailAddress = o.emailAddress ?? current();
      return gmailPush({ emailAddress, historyId: o.historyId ?? String(mailbox(emailAddress).historyId) }, signPushJwt(o), { messageId: o.messageId });
    },
  });
}
