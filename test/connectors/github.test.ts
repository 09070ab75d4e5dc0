import { describe, expect, it } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { TokenResponseError } from "../../src/connectors/tokenResponse.ts";
import type { InboundRequest } from "../../src/connectors/types.ts";
import {
  githubIssueCommentPayload,
  githubIssuesPayload,
  githubPullRequestPayload,
  githubWebhook,
} from "../helpers/fakeProviders/index.ts";

const github = findConnector("github")!;
const secret = "It's a Secret to Everybody";
const now = new Date("2026-01-01T12:00:00Z");

function inbound(signed: { headers: Record<string, string>; body: string }): InboundRequest {
  return { headers: signed.headers, rawBody: Buffer.from(signed.body) };
}

describe("github inbound verification", () => {
  it("accepts GitHub's documented test vector", () => {
    // From docs.github.com "Validating webhook deliveries": secret "It's a Secret to Everybody", body "Hello, World!".
    const req: InboundRequest = {
      headers: { "x-hub-signature-256": "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17" },
      rawBody: Buffer.from("Hello, World!"),
    };
    expect(github.inbound.verify(req, secret, now)).toEqual({ ok: true });
  });

  it("accepts a signed delivery and rejects a tampered body, a wrong secret or a missing header", () => {
    const signed = githubWebhook("issues", githubIssuesPayload("opened"), secret);
    expect(github.inbound.verify(inbound(signed), secret, now)).toEqual({ ok: true });

    const tampered = inbound({ ...signed, body: signed.body.replace("Found a bug", "Found a bag") });
    expect(github.inbound.verify(tampered, secret, now)).toMatchObject({ ok: false });
    expect(github.inbound.verify(inbound(signed), "another secret", now)).toMatchObject({ ok: false });

    const { ["x-hub-signature-256"]: _dropped, ...headers } = signed.headers;
    expect(github.inbound.verify(inbound({ headers, body: signed.body }), secret, now)).toEqual({
      ok: false,
      reason: "missing signature header",
    });
  });

  it("does not fall back to the legacy SHA-1 header, and rejects malformed or truncated signatures", () => {
    const signed = githubWebhook("issues", githubIssuesPayload("opened"), secret);
    const sha256 = signed.headers["x-hub-signature-256"];
    for (const bad of ["", "sha256=", sha256.slice(0, -2), sha256.replace("sha256=", "sha1="), `${sha256}00`]) {
      const req = inbound({ headers: { ...signed.headers, "x-hub-signature-256": bad }, body: signed.body });
      expect(github.inbound.verify(req, secret, now).ok).toBe(false);
    }
  });

  it("refuses everything when no secret is configured", () => {
    const signed = githubWebhook("issues", githubIssuesPayload("opened"), "");
    expect(github.inbound.verify(inbound(signed), "", now)).toMatchObject({ ok: false });
  });
});

describe("github event normalization", () => {
  const alice = { id: 1001, login: "alice" };
  const acme = { id: 9001, login: "acme" };

  it("maps issues opened to issue_opened, routed by sender then repository owner", () => {
    const signed = githubWebhook("issues", githubIssuesPayload("opened", { sender: alice, owner: acme }), secret, {
      deliveryId: "72d3162e-cc78-11e3-81ab-4c9367dc0958",
    });
    const result = github.inbound.parse(inbound(signed));
    expect(result.kind).toBe("events");
    if (result.kind !== "events") return;
    expect(result.events).toHaveLength(1);
    const [event] = result.events;
    expect(event.trigger).toBe("issue_opened");
    expect(event.externalIds).toEqual(["1001", "9001"]);
    expect(event.dedupeKey).toBe("72d3162e-cc78-11e3-81ab-4c9367dc0958");
    expect(event.occurredAt?.toISOString()).toBe("2026-01-01T10:00:00.000Z");
    expect(event.data).toMatchObject({
      action: "opened",
      sender: { id: 1001, login: "alice" },
      repository: { fullName: "acme/Hello-World", owner: { id: 9001 } },
      issue: { number: 42, title: "Found a bug", state: "open", labels: ["bug"] },
    });
  });

  it("gives a redelivery the same dedupe key", () => {
    const payload = githubIssuesPayload("closed");
    const first = github.inbound.parse(inbound(githubWebhook("issues", payload, secret, { deliveryId: "d-1" })));
    const again = github.inbound.parse(inbound(githubWebhook("issues", payload, secret, { deliveryId: "d-1" })));
    expect(first.kind === "events" && first.events[0].dedupeKey).toBe("d-1");
    expect(again.kind === "events" && again.events[0].dedupeKey).toBe("d-1");
  });

  it("maps issues closed, issue_comment created and pull_request opened", () => {
    const cases = [
      ["issues", githubIssuesPayload("closed"), "issue_closed", "2026-01-02T09:30:00.000Z"],
      ["issue_comment", githubIssueCommentPayload({ comment: "LGTM" }), "issue_comment_created", "2026-01-01T11:15:00.000Z"],
      ["pull_request", githubPullRequestPayload({ title: "Fix it" }), "pull_request_opened", "2026-01-01T12:00:00.000Z"],
    ] as const;
    for (const [name, payload, trigger, at] of cases) {
      const result = github.inbound.parse(inbound(githubWebhook(name, payload, secret)));
      expect(result.kind === "events" && result.events.map((e) => e.trigger)).toEqual([trigger]);
      if (result.kind === "events") expect(result.events[0].occurredAt?.toISOString()).toBe(at);
    }
    const comment = github.inbound.parse(inbound(githubWebhook("issue_comment", githubIssueCommentPayload({ comment: "LGTM" }), secret)));
    expect(comment.kind === "events" && comment.events[0].data).toMatchObject({ comment: { body: "LGTM" }, issue: { number: 42 } });
    const pr = github.inbound.parse(inbound(githubWebhook("pull_request", githubPullRequestPayload({ title: "Fix it" }), secret)));
    expect(pr.kind === "events" && pr.events[0].data).toMatchObject({ pullRequest: { title: "Fix it", base: { ref: "main" } } });
  });

  it("yields no events for events and actions GitHub does not document", () => {
    for (const [name, payload] of [
      ["no_such_event", { action: "created", sender: alice }],
      ["issues", { ...githubIssuesPayload("edited"), action: "frobnicated" }],
    ] as const) {
      expect(github.inbound.parse(inbound(githubWebhook(name, payload, secret)))).toEqual({ kind: "events", events: [] });
    }
  });

  it("maps every other documented event/action to its own trigger with GitHub's payload unchanged", () => {
    const edited = githubIssuesPayload("edited");
    const result = github.inbound.parse(inbound(githubWebhook("issues", edited, secret)));
    expect(result.events.map((e) => [e.trigger, e.data])).toEqual([["issues_edited", JSON.parse(JSON.stringify(edited))]]);
    const ping = github.inbound.parse(inbound(githubWebhook("ping", { zen: "Keep it logically awesome.", hook_id: 1, sender: alice }, secret)));
    expect(ping.events.map((e) => e.trigger)).toEqual(["ping"]);
    // repository_dispatch's action is the sender's own event_type.
    const dispatch = github.inbound.parse(inbound(githubWebhook("repository_dispatch", { action: "deploy-now", sender: alice }, secret)));
    expect(dispatch.events.map((e) => e.trigger)).toEqual(["repository_dispatch"]);
  });

  it("lists the sender only once when it owns the repository", () => {
    const result = github.inbound.parse(inbound(githubWebhook("issues", githubIssuesPayload("opened", { sender: alice }), secret)));
    expect(result.kind === "events" && result.events[0].externalIds).toEqual(["1001"]);
  });
});

describe("github token responses", () => {
  it("splits GitHub's comma-separated scopes and keeps non-expiring tokens without expiry", () => {
    const token = github.oauth.readTokenResponse({ access_token: "gho_abc", token_type: "bearer", scope: "read:user,repo" });
    expect(token).toMatchObject({ accessToken: "gho_abc", scopes: ["read:user", "repo"] });
    expect(token.expiresIn).toBeUndefined();
    expect(token.refreshToken).toBeUndefined();
  });

  it("reads expiring GitHub App user tokens", () => {
    const token = github.oauth.readTokenResponse({
      access_token: "ghu_abc",
      expires_in: 28800,
      refresh_token: "ghr_def",
      refresh_token_expires_in: 15897600,
      scope: "",
      token_type: "bearer",
    });
    expect(token).toMatchObject({ accessToken: "ghu_abc", refreshToken: "ghr_def", expiresIn: 28800, scopes: [] });
  });

  it("throws on GitHub's HTTP-200 error bodies", () => {
    expect(() => github.oauth.readTokenResponse({ error: "bad_verification_code", error_description: "The code passed is incorrect or expired." })).toThrow(
      TokenResponseError,
    );
    try {
      github.oauth.readTokenResponse({ error: "bad_refresh_token" });
    } catch (e) {
      expect((e as TokenResponseError).code).toBe("bad_refresh_token");
    }
  });
});
