/**
 * Jira Cloud webhooks (https://developer.atlassian.com/cloud/jira/platform/webhooks/).
 *
 * Verification: webhooks registered with a secret (admin webhooks, System → WebHooks or
 * /rest/webhooks/1.0/webhook) are signed WebSub-style: `X-Hub-Signature: sha256=<hex HMAC-SHA256
 * (secret, raw body)>`. That is the scheme accepted here. (Dynamic webhooks registered by an OAuth
 * app through /rest/api/3/webhook carry a JWT instead; they are not accepted.)
 *
 * Mapped: `jira:issue_created` → issue_created, `jira:issue_updated` → issue_updated.
 * Routing: `user.accountId` (the actor), matched to the account_id read from `GET /me`.
 * Dedupe: `X-Atlassian-Webhook-Identifier` (unchanged across retries); without it,
 * timestamp + webhookEvent + issue id.
 */
import type { InboundRequest, InboundResult, NormalizedEvent, VerifyResult } from "../types.ts";
import { verifySha256Header } from "../signatures.ts";
import { asRecord, asString, parseJsonObject } from "../json.ts";

export function verifyJiraWebhook(req: InboundRequest, secret: string): VerifyResult {
  return verifySha256Header(req.headers["x-hub-signature"], req.rawBody, secret);
}

const TRIGGERS: Record<string, string> = {
  "jira:issue_created": "issue_created",
  "jira:issue_updated": "issue_updated",
};

function person(value: unknown): { accountId: string; displayName: string | null } | null {
  const p = asRecord(value);
  const accountId = asString(p?.accountId);
  if (!p || !accountId) return null;
  return { accountId, displayName: asString(p.displayName) ?? null };
}

function named(value: unknown): string | null {
  return asString(asRecord(value)?.name) ?? null;
}

/** The site's base URL, from the issue's REST `self` link (https://<site>.atlassian.net/rest/api/2/issue/10001). */
function siteUrl(self: string | undefined): string | null {
  if (!self) return null;
  try {
    return new URL(self).origin;
  } catch {
    return null;
  }
}

function issueData(value: unknown) {
  const issue = asRecord(value) ?? {};
  const fields = asRecord(issue.fields) ?? {};
  const project = asRecord(fields.project) ?? {};
  const self = asString(issue.self);
  const base = siteUrl(self);
  const key = asString(issue.key) ?? null;
  return {
    id: asString(issue.id) ?? null,
    key,
    self: self ?? null,
    url: base && key ? `${base}/browse/${key}` : null,
    summary: asString(fields.summary) ?? "",
    status: named(fields.status),
    issueType: named(fields.issuetype),
    priority: named(fields.priority),
    project: {
      id: asString(project.id) ?? null,
      key: asString(project.key) ?? null,
      name: asString(project.name) ?? null,
    },
    assignee: person(fields.assignee),
    reporter: person(fields.reporter),
    created: asString(fields.created) ?? null,
    updated: asString(fields.updated) ?? null,
  };
}

function changelogItems(value: unknown) {
  const items = asRecord(value)?.items;
  if (!Array.isArray(items)) return [];
  return items.map((raw) => {
    const item = asRecord(raw) ?? {};
    return {
      field: asString(item.field) ?? "",
      from: asString(item.from) ?? null,
      fromString: asString(item.fromString) ?? null,
      to: asString(item.to) ?? null,
      toString: asString(item.toString) ?? null,
    };
  });
}

export function parseJiraWebhook(req: InboundRequest): InboundResult {
  const payload = parseJsonObject(req.rawBody);
  const webhookEvent = asString(payload?.webhookEvent) ?? "";
  const trigger = TRIGGERS[webhookEvent];
  if (!payload || !trigger) return { kind: "events", events: [] };

  const actor = person(payload.user);
  const issue = issueData(payload.issue);
  const timestamp = typeof payload.timestamp === "number" ? payload.timestamp : undefined;
  const data: Record<string, unknown> = {
    webhookEvent,
    issueEventTypeName: asString(payload.issue_event_type_name) ?? null,
    user: actor,
    issue,
    ...(trigger === "issue_updated" ? { changes: changelogItems(payload.changelog) } : {}),
  };
  const event: NormalizedEvent = {
    trigger,
    externalIds: actor ? [actor.accountId] : [],
    dedupeKey:
      req.headers["x-atlassian-webhook-identifier"] ?? `${timestamp ?? ""}:${webhookEvent}:${issue.id ?? ""}`,
    occurredAt: timestamp !== undefined ? new Date(timestamp) : new Date(),
    data,
  };
  return { kind: "events", events: [event] };
}
