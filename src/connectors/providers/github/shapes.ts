/**
 * The documented `data` of GitHub's four original triggers (issue_opened, issue_closed,
 * issue_comment_created, pull_request_opened): a camelCase subset of GitHub's payload, kept exactly
 * as the first release forwarded it. Every other GitHub trigger forwards GitHub's payload unchanged.
 */
import { asRecord, asString } from "../../json.ts";

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

const base = (payload: Record<string, unknown>) => ({
  action: asString(payload.action) ?? "",
  repository: repository(payload.repository),
  sender: user(payload.sender),
});

/** issues.opened / issues.closed, as forwarded since the first release. */
export function shapeIssueEvent(payload: Record<string, unknown>): Record<string, unknown> {
  return { ...base(payload), issue: issue(payload.issue) };
}

/** issue_comment.created. */
export function shapeIssueCommentEvent(payload: Record<string, unknown>): Record<string, unknown> {
  return { ...base(payload), issue: issue(payload.issue), comment: comment(payload.comment) };
}

/** pull_request.opened. */
export function shapePullRequestEvent(payload: Record<string, unknown>): Record<string, unknown> {
  return { ...base(payload), pullRequest: pullRequest(payload.pull_request) };
}
