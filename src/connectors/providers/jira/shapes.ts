/**
 * The documented `data` of Jira's two original triggers (issue_created, issue_updated): a
 * camelCase subset of the webhook body, kept exactly as the first release forwarded it.
 */
import { asRecord, asString } from "../../json.ts";

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

function shape(payload: Record<string, unknown>) {
  return {
    webhookEvent: asString(payload.webhookEvent) ?? "",
    issueEventTypeName: asString(payload.issue_event_type_name) ?? null,
    user: person(payload.user),
    issue: issueData(payload.issue),
  };
}

/** jira:issue_created, as forwarded since the first release. */
export function shapeIssueCreated(payload: Record<string, unknown>): Record<string, unknown> {
  return shape(payload);
}

/** jira:issue_updated: the same plus the changelog's items. */
export function shapeIssueUpdated(payload: Record<string, unknown>): Record<string, unknown> {
  return { ...shape(payload), changes: changelogItems(payload.changelog) };
}
