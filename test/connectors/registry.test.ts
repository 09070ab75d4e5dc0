import { describe, expect, it } from "vitest";
import { allConnectors, connectorNames, findConnector, resolveEndpoints } from "../../src/connectors/registry.ts";
import type { InboundRequest, NormalizedEvent } from "../../src/connectors/types.ts";
import { historyToEvents, withMessageMetadata } from "../../src/connectors/providers/gmail/events.ts";
import {
  githubIssueCommentPayload,
  githubIssuesPayload,
  githubPullRequestPayload,
  githubWebhook,
  jiraIssuePayload,
  jiraWebhook,
  slackEvent,
  slackMessageEvent,
  slackReactionEvent,
} from "../helpers/fakeProviders/index.ts";

const connectors = allConnectors();

describe("the connector catalog", () => {
  it("keeps the four connectors of the first release with their categories and original triggers", () => {
    expect(connectorNames).toEqual(expect.arrayContaining(["gmail", "github", "jira", "slack"]));
    const summary = Object.fromEntries(
      ["gmail", "github", "jira", "slack"].map((name) => {
        const c = findConnector(name)!;
        return [c.name, [c.category, c.triggers.map((t) => t.name)]];
      }),
    );
    expect(summary).toMatchObject({
      gmail: ["mail", ["email_sent", "email_received"]],
      github: ["issue_tracker", expect.arrayContaining(["issue_opened", "issue_closed", "issue_comment_created", "pull_request_opened"])],
      jira: ["issue_tracker", ["issue_created", "issue_updated"]],
      slack: ["chat", expect.arrayContaining(["message_posted", "reaction_added"])],
    });
  });

  it("finds connectors by exact name only", () => {
    expect(findConnector("github")?.displayName).toBe("GitHub");
    expect(findConnector("GitHub")).toBeUndefined();
    expect(findConnector("myspace")).toBeUndefined();
    expect(findConnector("__proto__")).toBeUndefined();
  });

  it.each(connectors.map((c) => [c.name, c] as const))("%s is well-formed", (_name, c) => {
    expect(c.name).toMatch(/^[a-z][a-z0-9_]*$/);
    expect(c.displayName && c.description).toBeTruthy();
    expect(c.icon).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"[\s\S]*<\/svg>$/);
    expect(c.icon).not.toMatch(/<script|on\w+=/i);
    // A connector that is never authorized (authMode NONE) has no endpoints to reach.
    // API_KEY and BASIC connectors have no authorization server: only their API URL.
    if (c.authMode !== "NONE") for (const url of Object.values(c.endpoints).filter(Boolean)) expect(new URL(url).protocol).toBe("https:");
    // Some providers take no scopes (the app's settings decide: Intercom, Notion, ClickUp, Calendly);
    // those that do must not contain a separator, or joining them would change what is asked for.
    for (const scope of c.oauth.scopes) expect(scope).toMatch(/^[^\s,]+$/);
    expect(new Set(c.triggers.map((t) => t.name)).size).toBe(c.triggers.length);
    for (const t of c.triggers) {
      expect(t.name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(t.displayName && t.description).toBeTruthy();
      expect(() => JSON.stringify(t.samplePayload)).not.toThrow();
    }
    // A connector takes inbound events exactly when it offers triggers that are not polled — except
    // Switchyard's own (authMode NONE), whose triggers Switchyard emits itself.
    if (c.authMode === "NONE") expect(c.inbound.delivery).toBe("none");
    else expect(c.inbound.delivery === "none").toBe(c.triggers.every((t) => c.declaration.polling?.triggers[t.name]));
  });
});

describe("resolveEndpoints", () => {
  const github = findConnector("github")!;
  const gmail = findConnector("gmail")!;

  it("uses the real production URLs by default", () => {
    expect(resolveEndpoints(github, {})).toEqual({
      authorizeUrl: "https://github.com/login/oauth/authorize",
      tokenUrl: "https://github.com/login/oauth/access_token",
      apiUrl: "https://api.github.com",
      revocationUrl: "https://api.github.com/applications/{clientId}/grant",
    });
    expect(resolveEndpoints(gmail, {}).jwksUrl).toBe("https://www.googleapis.com/oauth2/v3/certs");
  });

  it("applies CONNECTOR_<NAME>_* overrides, ignoring empty values and trailing slashes", () => {
    const env = {
      CONNECTOR_GITHUB_AUTHORIZE_URL: "http://127.0.0.1:5001/login/oauth/authorize",
      CONNECTOR_GITHUB_TOKEN_URL: "  ",
      CONNECTOR_GITHUB_API_URL: "http://127.0.0.1:5001/api/v3/",
      CONNECTOR_GITHUB_JWKS_URL: "http://127.0.0.1:5001/certs",
      CONNECTOR_GMAIL_JWKS_URL: "http://127.0.0.1:5002/oauth2/v3/certs",
    };
    expect(resolveEndpoints(github, env)).toEqual({
      authorizeUrl: "http://127.0.0.1:5001/login/oauth/authorize",
      tokenUrl: "https://github.com/login/oauth/access_token",
      apiUrl: "http://127.0.0.1:5001/api/v3",
      apiUrlOverridden: true,
      revocationUrl: "https://api.github.com/applications/{clientId}/grant",
    });
    expect(resolveEndpoints(github, { CONNECTOR_GITHUB_API_URL: " " }).apiUrlOverridden).toBeUndefined();
    expect(resolveEndpoints(gmail, env).jwksUrl).toBe("http://127.0.0.1:5002/oauth2/v3/certs");
  });
});

/** The key structure of a value, so samples and parsed data can be compared by shape. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? [shape(value[0])] : [];
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, shape((value as Record<string, unknown>)[k])]));
  }
  return "leaf";
}

function events(name: string, signed: { headers: Record<string, string>; body: string }): NormalizedEvent[] {
  const req: InboundRequest = { headers: signed.headers, rawBody: Buffer.from(signed.body) };
  const result = findConnector(name)!.inbound.parse(req);
  return result.kind === "events" ? result.events : [];
}

describe("sample payloads are shaped like the data parse() produces", () => {
  const gmailData = (labels: string[]) =>
    withMessageMetadata(historyToEvents({ history: [{ id: "1", messagesAdded: [{ message: { id: "m", threadId: "t", labelIds: labels } }] }] }, "a@b.c")[0], {
      internalDate: "1",
      snippet: "s",
      payload: { headers: [] },
    });
  const produced: Record<string, NormalizedEvent> = {
    "github.issue_opened": events("github", githubWebhook("issues", githubIssuesPayload("opened"), "s"))[0],
    "github.issue_closed": events("github", githubWebhook("issues", githubIssuesPayload("closed"), "s"))[0],
    "github.issue_comment_created": events("github", githubWebhook("issue_comment", githubIssueCommentPayload(), "s"))[0],
    "github.pull_request_opened": events("github", githubWebhook("pull_request", githubPullRequestPayload(), "s"))[0],
    "jira.issue_created": events("jira", jiraWebhook(jiraIssuePayload("jira:issue_created"), "s"))[0],
    "jira.issue_updated": events("jira", jiraWebhook(jiraIssuePayload("jira:issue_updated"), "s"))[0],
    "slack.message_posted": events("slack", slackEvent(slackMessageEvent(), "s"))[0],
    "slack.reaction_added": events("slack", slackEvent(slackReactionEvent(), "s"))[0],
    "gmail.email_sent": gmailData(["SENT"]),
    "gmail.email_received": gmailData(["INBOX"]),
  };

  // The ten original triggers have documented shapes; the others forward the provider's payload as is.
  for (const [key, event] of Object.entries(produced)) {
    it(key, () => {
      const [connector, trigger] = key.split(".");
      const t = findConnector(connector)!.triggers.find((candidate) => candidate.name === trigger)!;
      expect(event?.trigger).toBe(t.name);
      expect(shape(t.samplePayload)).toEqual(shape(event.data));
    });
  }
});
