/**
 * GitHub webhooks (https://docs.github.com/webhooks): the body is JSON, signed with
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>`; the event name is in
 * `X-GitHub-Event`, the delivery GUID (unchanged on redelivery) in `X-GitHub-Delivery`.
 *
 * Mapped: issues/opened → issue_opened, issues/closed → issue_closed,
 * issue_comment/created → issue_comment_created, pull_request/opened → pull_request_opened.
 * Everything else (ping, other actions) yields no events.
 *
 * Routing: externalIds are `sender.id` then `repository.owner.id` (GitHub user ids, as strings),
 * matching the `id` read from `GET /user` at connect time.
 */
import type { InboundRequest, InboundResult, NormalizedEvent, VerifyResult } from "../types.ts";
import { bodyDigest, verifySha256Header } from "../signatures.ts";
import { asRecord, asString, parseJsonObject, toDate } from "../json.ts";

export function verifyGitHubWebhook(req: InboundRequest, secret: string): VerifyResult {
  return verifySha256Header(req.headers["x-hub-signature-256"], req.rawBody, secret);
}

/** A GitHub account as forwarded: enough to identify and link, nothing private. */
export interface GitHubUserData {
  id: number;
  login: string;
  type?: string;
  htmlUrl?: string;
}
export interface GitHubRepositoryData {
  id: number;
  name: string;
  fullName: string;
  private: boolean;
  htmlUrl: string;
  owner: GitHubUserData;
}
export interface GitHubIssueData {
  id: number;
  number: number;
  title: string;
  body: string | null;
  state: string;
  htmlUrl: string;
  labels: string[];
  user: GitHubUserData | null;
  createdAt: string;
  updatedAt: string | null;
  closedAt: string | null;
}

function user(value: unknown): GitHubUserData | null {
  const u = asRecord(value);
  if (!u) return null;
  return {
    id: Number(u.id),
    login: String(u.login ?? ""),
    ...(typeof u.type === "string" ? { type: u.type } : {}),
    ...(typeof u.html_url === "string" ? { htmlUrl: u.html_url } : {}),
  };
}

function repository(value: unknown): GitHubRepositoryData | null {
  const r = asRecord(value);
  if (!r) return null;
  return {
    id: Number(r.id),
    name: String(r.name ?? ""),
    fullName: String(r.full_name ?? ""),
    private: r.private === true,
    htmlUrl: String(r.html_url ?? ""),
    owner: user(r.owner) ?? { id: 0, login: "" },
  };
}

function issue(value: unknown): GitHubIssueData | null {
  const i = asRecord(value);
  if (!i) return null;
  const labels = Array.isArray(i.labels)
    ? i.labels.map((l) => asString(asRecord(l)?.name)).filter((n): n is string => n !== undefined)
    : [];
  return {
    id: Number(i.id),
    number: Number(i.number),
    title: String(i.title ?? ""),
    body: typeof i.body === "string" ? i.body : null,
    state: String(i.state ?? ""),
    htmlUrl: String(i.html_url ?? ""),
    labels,
    user: user(i.user),
    createdAt: String(i.created_at ?? ""),
    updatedAt: typeof i.updated_at === "string" ? i.updated_at : null,
    closedAt: typeof i.closed_at === "string" ? i.closed_at : null,
  };
}

function pullRequest(value: unknown) {
  const p = asRecord(value);
  if (!p) return null;
  const head = asRecord(p.head);
  const base = asRecord(p.base);
  return {
    id: Number(p.id),
    number: Number(p.number),
    title: String(p.title ?? ""),
    body: typeof p.body === "string" ? p.body : null,
    state: String(p.state ?? ""),
    draft: p.draft === true,
    htmlUrl: String(p.html_url ?? ""),
    user: user(p.user),
    head: { ref: String(head?.ref ?? ""), sha: String(head?.sha ?? "") },
    base: { ref: String(base?.ref ?? ""), sha: String(base?.sha ?? "") },
    createdAt: String(p.created_at ?? ""),
  };
}

function comment(value: unknown) {
  const c = asRecord(value);
  if (!c) return null;
  return {
    id: Number(c.id),
    body: String(c.body ?? ""),
    htmlUrl: String(c.html_url ?? ""),
    user: user(c.user),
    createdAt: String(c.created_at ?? ""),
  };
}

const MAPPING: Record<string, Record<string, string>> = {
  issues: { opened: "issue_opened", closed: "issue_closed" },
  issue_comment: { created: "issue_comment_created" },
  pull_request: { opened: "pull_request_opened" },
};

export function parseGitHubWebhook(req: InboundRequest): InboundResult {
  const eventName = req.headers["x-github-event"] ?? "";
  const payload = parseJsonObject(req.rawBody);
  const action = asString(payload?.action) ?? "";
  const trigger = MAPPING[eventName]?.[action];
  if (!payload || !trigger) return { kind: "events", events: [] };

  const sender = user(payload.sender);
  const repo = repository(payload.repository);
  const externalIds = [...new Set([sender?.id, repo?.owner.id].filter((id) => id).map(String))];
  const base = { action, repository: repo, sender };

  let data: Record<string, unknown>;
  let occurredAt: Date | undefined;
  if (eventName === "issues") {
    const i = issue(payload.issue);
    data = { ...base, issue: i };
    occurredAt = toDate(action === "closed" ? i?.closedAt : i?.createdAt);
  } else if (eventName === "issue_comment") {
    const c = comment(payload.comment);
    data = { ...base, issue: issue(payload.issue), comment: c };
    occurredAt = toDate(c?.createdAt);
  } else {
    const p = pullRequest(payload.pull_request);
    data = { ...base, pullRequest: p };
    occurredAt = toDate(p?.createdAt);
  }

  // Redeliveries keep the X-GitHub-Delivery GUID, which is what makes them deduplicable.
  const delivery = req.headers["x-github-delivery"];
  const event: NormalizedEvent = {
    trigger,
    externalIds,
    dedupeKey: delivery ?? `sha256:${bodyDigest(req.rawBody)}`,
    occurredAt: occurredAt ?? new Date(),
    data,
  };
  return { kind: "events", events: [event] };
}
