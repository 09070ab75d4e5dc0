/**
 * GitHub's trigger list is GitHub's own: one trigger per event/action pair in @octokit/webhooks'
 * emitterEventNames, one per event without actions or with free-form ones, none twice; and the
 * committed generated file is what scripts/generate-github-triggers.ts produces today.
 */
import { readFileSync } from "node:fs";
import { emitterEventNames } from "@octokit/webhooks";
import { describe, expect, it } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { renderGitHubTriggers } from "../../scripts/githubTriggers.ts";

const github = findConnector("github")!;
const names = emitterEventNames as readonly string[];

describe("GitHub's trigger catalog", () => {
  it("offers exactly one trigger per documented event/action pair and per event without actions", () => {
    const withActions = new Set(names.filter((n) => n.includes(".")).map((n) => n.split(".")[0]));
    const expected = new Set(
      names.filter((n) => {
        const [event, action] = n.split(/\.(.*)/s);
        if (event === "repository_dispatch") return action === undefined; // free-form actions
        return action !== undefined || !withActions.has(event);
      }),
    );
    // Webhook triggers; the polled ones read a list endpoint instead.
    const offered = github.triggers.filter((t) => !github.declaration.polling?.triggers[t.name]).map((t) => t.providerEvent);
    expect(new Set(offered).size).toBe(offered.length);
    expect(new Set(offered)).toEqual(expected);
    expect(offered).toEqual(expect.arrayContaining(["issues.opened", "push", "repository_dispatch", "pull_request.synchronize", "workflow_run.completed"]));
    expect(github.triggers.length).toBeGreaterThan(250);
  });

  it("keeps the four original triggers for their pairs and names the others <event>_<action>", () => {
    const byEvent = Object.fromEntries(github.triggers.map((t) => [t.providerEvent, t.name]));
    expect(byEvent).toMatchObject({
      "issues.opened": "issue_opened",
      "issues.closed": "issue_closed",
      "issue_comment.created": "issue_comment_created",
      "pull_request.opened": "pull_request_opened",
      "issues.edited": "issues_edited",
      push: "push",
      "check_run.requested_action": "check_run_requested_action",
    });
    for (const t of github.triggers) expect(t.description.length, t.name).toBeGreaterThan(10);
  });

  it("names every trigger like the hand-written ones: the resource in the singular, then what happened, in the past tense", () => {
    const byKey = Object.fromEntries(github.triggers.map((t) => [t.name, t.displayName]));
    expect(byKey).toMatchObject({
      issue_opened: "Issue opened", // hand-written
      issues_reopened: "Issue reopened", // generated, key unchanged
      issues_labeled: "Issue labeled",
      pull_request_closed: "Pull request closed",
      pull_request_synchronize: "Pull request synchronized",
      pull_request_ready_for_review: "Pull request marked ready for review",
      installation_suspend: "Installation suspended",
      repository_vulnerability_alert_create: "Repository vulnerability alert created",
      projects_v2_item_created: "Project (v2) item created",
      github_app_authorization_revoked: "GitHub App authorization revoked",
      push: "Commits pushed",
      create: "Branch or tag created",
      workflow_run_completed: "Workflow run completed",
    });
    const displayNames = github.triggers.map((t) => t.displayName);
    expect(displayNames.filter((n) => /^(Issues|Projects v2|Github) /.test(n))).toEqual([]);
    // No two triggers read the same in a picker.
    expect(new Set(displayNames).size).toBe(displayNames.length);
  });

  it("the committed list is what the generator produces from the installed packages", async () => {
    const committed = readFileSync(new URL("../../src/connectors/providers/github/events.generated.ts", import.meta.url), "utf8");
    expect(committed, "run `npx tsx scripts/generate-github-triggers.ts`").toBe(await renderGitHubTriggers());
  });
});
