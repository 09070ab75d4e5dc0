/**
 * Local fake providers for tests: real HTTP servers on 127.0.0.1:0 speaking each provider's OAuth
 * and identity protocol, plus builders for signed inbound webhooks. Point Switchyard at one with
 * `fake.env()` (the CONNECTOR_<NAME>_* variables) and close it in afterAll.
 */
export type { FakeOAuthOptions, FakeOAuthServer, Grant, TokenRequestRecord } from "./oauthServer.ts";
export type { SignedRequest } from "./signedRequest.ts";
export {
  startFakeGitHub,
  githubWebhook,
  githubIssuesPayload,
  githubIssueCommentPayload,
  githubPullRequestPayload,
  type FakeGitHub,
  type FakeGitHubOptions,
  type FakeGitHubUser,
} from "./github.ts";
export {
  startFakeSlack,
  slackEvent,
  slackMessageEvent,
  slackReactionEvent,
  slackUrlVerification,
  type FakeSlack,
  type FakeSlackOptions,
  type FakeSlackIdentity,
} from "./slack.ts";
export { startFakeJira, jiraWebhook, jiraIssuePayload, type FakeJira, type FakeJiraOptions, type FakeJiraIdentity } from "./jira.ts";
export {
  startFakeGoogle,
  startFakeGoogle as startFakeGmail,
  gmailPush,
  type FakeGoogle,
  type FakeGoogleOptions,
  type FakeGoogleIdentity,
  type FakeMessage,
  type PushJwtOptions,
} from "./google.ts";
