import { createHmac } from "node:crypto";
import {
  type FakeGitHub,
  type FakeGoogle,
  type FakeJira,
  type FakeSlack,
  githubIssueCommentPayload,
  githubIssuesPayload,
  githubPullRequestPayload,
  jiraIssuePayload,
  slackMessageEvent,
  slackReactionEvent,
  slackUrlVerification,
} from "../helpers/fakeProviders/index.ts";

/**
 * How each connector's provider signs a delivery, and what its real bodies look like, keyed by
 * connector name. The fuzzer signs hostile bodies with the same secrets the test app is configured
 * with, so verification passes and the parsers and the recording path see them. A connector with
 * no entry here is still fuzzed, with its triggers' sample payloads and unsigned or forged requests
 * only: add an entry when adding a connector.
 */
export interface WebhookSigner {
  /** The headers that make `body` verify (bytes as they are: a Buffer may hold anything). */
  sign(body: string | Buffer): Record<string, string>;
  /** Headers the provider sends beside the signature (event names, delivery ids). */
  eventHeaders: Array<Record<string, string>>;
  /** Bodies as the provider sends them, to be mutated. */
  samples: Array<Record<string, unknown>>;
}

const hmacHex = (secret: string, text: string | Buffer) => createHmac("sha256", secret).update(text).digest("hex");

export function webhookSigners(fakes: { github: FakeGitHub; slack: FakeSlack; jira: FakeJira; google: FakeGoogle }): Record<string, WebhookSigner> {
  return {
    github: {
      sign: (body) => ({ "x-hub-signature-256": `sha256=${hmacHex(fakes.github.webhookSecret, body)}` }),
      eventHeaders: [
        { "x-github-event": "issues", "x-github-delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958" },
        { "x-github-event": "issue_comment" },
        { "x-github-event": "pull_request", "x-github-delivery": "" },
        { "x-github-event": "ping" },
        { "x-github-event": "push" },
      ],
      samples: [githubIssuesPayload("opened"), githubIssuesPayload("closed"), githubIssueCommentPayload(), githubPullRequestPayload()],
    },
    slack: {
      sign: (body) => {
        const timestamp = String(Math.floor(Date.now() / 1000));
        return { "x-slack-request-timestamp": timestamp, "x-slack-signature": `v0=${hmacHex(fakes.slack.signingSecret, Buffer.concat([Buffer.from(`v0:${timestamp}:`), Buffer.from(body)]))}` };
      },
      eventHeaders: [{}, { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" }],
      samples: [slackMessageEvent(), slackReactionEvent(), slackUrlVerification()],
    },
    jira: {
      sign: (body) => ({ "x-hub-signature": `sha256=${hmacHex(fakes.jira.webhookSecret, body)}` }),
      eventHeaders: [{ "x-atlassian-webhook-identifier": "f0b1c2d3" }, { "x-atlassian-webhook-identifier": "" }, {}],
      samples: [jiraIssuePayload("jira:issue_created"), jiraIssuePayload("jira:issue_updated")],
    },
    gmail: {
      // Pub/Sub push: the token signs no body, so any body "verifies" when the token is genuine.
      sign: () => ({ authorization: `Bearer ${fakes.google.signPushJwt()}` }),
      eventHeaders: [{}],
      samples: [
        {
          message: {
            data: Buffer.from(JSON.stringify({ emailAddress: "nobody@example.com", historyId: 4242 })).toString("base64"),
            messageId: "2070443601311540",
            publishTime: "2026-01-01T00:00:00Z",
          },
          subscription: "projects/switchyard-test/subscriptions/gmail-push",
        },
      ],
    },
  };
}
