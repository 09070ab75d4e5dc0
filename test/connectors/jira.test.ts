import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import type { InboundRequest } from "../../src/connectors/types.ts";
import { jiraIssuePayload, jiraWebhook } from "../helpers/fakeProviders/index.ts";

const jira = findConnector("jira")!;
const secret = "jira-admin-webhook-secret";
const now = new Date("2026-01-01T12:00:00Z");

function inbound(signed: { headers: Record<string, string>; body: string }): InboundRequest {
  return { headers: signed.headers, rawBody: Buffer.from(signed.body) };
}

describe("jira webhook verification (X-Hub-Signature: sha256=…)", () => {
  it("accepts a signed webhook and rejects tampering, a wrong secret and an unsigned request", () => {
    const signed = jiraWebhook(jiraIssuePayload("jira:issue_created"), secret);
    expect(jira.inbound.verify(inbound(signed), secret, now)).toEqual({ ok: true });
    expect(jira.inbound.verify(inbound({ ...signed, body: signed.body.replace("OPS-17", "OPS-18") }), secret, now).ok).toBe(false);
    expect(jira.inbound.verify(inbound(signed), "wrong", now).ok).toBe(false);
    const { ["x-hub-signature"]: _dropped, ...unsigned } = signed.headers;
    expect(jira.inbound.verify(inbound({ headers: unsigned, body: signed.body }), secret, now).ok).toBe(false);
  });

  it("accepts upper-case hex", () => {
    const signed = jiraWebhook(jiraIssuePayload("jira:issue_created"), secret);
    const upper = { ...signed.headers, "x-hub-signature": `sha256=${signed.headers["x-hub-signature"].slice(7).toUpperCase()}` };
    expect(jira.inbound.verify(inbound({ headers: upper, body: signed.body }), secret, now)).toEqual({ ok: true });
  });
});

describe("jira event normalization", () => {
  it("maps jira:issue_created, routed by user.accountId, deduped by the webhook identifier", () => {
    const payload = jiraIssuePayload("jira:issue_created", { accountId: "acc-1", issueKey: "OPS-17", timestamp: 1767261600000 });
    const result = jira.inbound.parse(inbound(jiraWebhook(payload, secret, { identifier: "wh-123" })));
    expect(result.kind === "events" && result.events).toEqual([
      {
        trigger: "issue_created",
        externalIds: ["acc-1"],
        dedupeKey: "wh-123",
        occurredAt: new Date(1767261600000),
        data: {
          webhookEvent: "jira:issue_created",
          issueEventTypeName: "issue_created",
          user: { accountId: "acc-1", displayName: "Alice Example" },
          issue: {
            id: "10001",
            key: "OPS-17",
            self: "https://example.atlassian.net/rest/api/2/issue/10001",
            url: "https://example.atlassian.net/browse/OPS-17",
            summary: "Checkout page times out",
            status: "To Do",
            issueType: "Bug",
            priority: "High",
            project: { id: "10000", key: "OPS", name: "Operations" },
            assignee: null,
            reporter: { accountId: "acc-1", displayName: "Alice Example" },
            created: "2026-01-01T10:00:00.000+0000",
            updated: "2026-01-01T10:00:00.000+0000",
          },
        },
      },
    ]);
  });

  it("maps jira:issue_updated with its changelog", () => {
    const result = jira.inbound.parse(inbound(jiraWebhook(jiraIssuePayload("jira:issue_updated"), secret)));
    expect(result.kind === "events" && result.events[0]).toMatchObject({
      trigger: "issue_updated",
      data: { issue: { status: "In Progress" }, changes: [{ field: "status", fromString: "To Do", toString: "In Progress" }] },
    });
  });

  it("dedupes retries: same identifier, or the body's digest when the header is absent or empty", () => {
    const payload = jiraIssuePayload("jira:issue_updated", { timestamp: 1767261600000, issueId: "10042" });
    const a = jira.inbound.parse(inbound(jiraWebhook(payload, secret, { identifier: "same" })));
    const b = jira.inbound.parse(inbound(jiraWebhook(payload, secret, { identifier: "same", retry: 1 })));
    expect(a.kind === "events" && b.kind === "events" && a.events[0].dedupeKey === b.events[0].dedupeKey).toBe(true);

    const signed = jiraWebhook(payload, secret);
    const { ["x-atlassian-webhook-identifier"]: _id, ...headers } = signed.headers;
    const c = jira.inbound.parse(inbound({ headers, body: signed.body }));
    const empty = jira.inbound.parse(inbound({ headers: { ...headers, "x-atlassian-webhook-identifier": " " }, body: signed.body }));
    const digest = `sha256:${createHash("sha256").update(signed.body).digest("hex")}`;
    expect(c.kind === "events" && c.events[0].dedupeKey).toBe(digest);
    expect(empty.kind === "events" && empty.events[0].dedupeKey).toBe(digest);
  });

  it("yields no events for unmapped webhook events", () => {
    expect(jira.inbound.parse(inbound(jiraWebhook(jiraIssuePayload("jira:issue_deleted"), secret)))).toEqual({ kind: "events", events: [] });
    expect(jira.inbound.parse(inbound(jiraWebhook({ webhookEvent: "comment_created" }, secret)))).toEqual({ kind: "events", events: [] });
  });
});

describe("jira identity", () => {
  it("reads accessible resources then /me", async () => {
    const calls: string[] = [];
    const identity = await jira.readIdentity({
      now: new Date(),
      accessToken: "at",
      token: {},
      apiUrl: "https://api.atlassian.com",
      fetchJson: async (path) => {
        calls.push(path);
        if (path === "/oauth/token/accessible-resources") {
          return [{ id: "cloud-1", url: "https://example.atlassian.net", name: "example", scopes: ["read:jira-work"], avatarUrl: "x" }];
        }
        return { account_id: "5b10ac8d82e05b22cc7d4ef5", name: "Alice Example", email: "alice@example.com" };
      },
    });
    expect(calls).toEqual(["/oauth/token/accessible-resources", "/me"]);
    expect(identity).toEqual({
      externalId: "5b10ac8d82e05b22cc7d4ef5",
      displayName: "Alice Example",
      metadata: { email: "alice@example.com", sites: [{ cloudId: "cloud-1", url: "https://example.atlassian.net", name: "example" }] },
    });
  });
});
