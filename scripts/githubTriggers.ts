/**
 * Builds the generated GitHub trigger list (see generate-github-triggers.ts). Separate from the
 * script so a test can compare the committed file with what the installed packages produce.
 */
import { createRequire } from "node:module";
import { emitterEventNames } from "@octokit/webhooks";

const require = createRequire(import.meta.url);

/** Triggers of the first release: their event/action pairs must not get a second trigger. */
export const ORIGINAL_TRIGGERS: Record<string, string> = {
  "issues.opened": "issue_opened",
  "issues.closed": "issue_closed",
  "issue_comment.created": "issue_comment_created",
  "pull_request.opened": "pull_request_opened",
};

/**
 * Events whose `action` is chosen by the sender, not by GitHub: repository_dispatch carries the
 * dispatch request's `event_type` (emitterEventNames lists one made-up example of it).
 */
export const FREE_FORM_ACTIONS = new Set(["repository_dispatch"]);

interface OpenApiOperation {
  operationId: string;
  summary?: string;
  description?: string;
}

interface Example {
  action?: string;
  [key: string]: unknown;
}

const words = (s: string) => s.replaceAll("_", " ");
const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/*
 * Display names read like the hand-written triggers ("Issue opened", "Message posted"): the
 * resource in the singular, then what happened to it in the past tense. GitHub's event names are
 * sometimes plural ("issues") or internal ("gollum"), and some actions are verbs ("synchronize"),
 * so the words come from these tables; anything not in them is read as GitHub spells it, which
 * already has this shape ("check_run" + "completed"). Only names change: trigger keys stay
 * `<event>_<action>`.
 */

/** The resource an event is about, where GitHub's event name is not it in the singular. */
const RESOURCES: Record<string, string> = {
  issues: "Issue",
  github_app_authorization: "GitHub App authorization",
  projects_v2: "Project (v2)",
  projects_v2_item: "Project (v2) item",
  projects_v2_status_update: "Project (v2) status update",
  org_block: "Organization block",
  meta: "Webhook",
  marketplace_purchase: "Marketplace purchase",
};

/** Actions that are not already past participles (or read wrongly after the resource). */
const ACTIONS: Record<string, string> = {
  synchronize: "synchronized",
  suspend: "suspended",
  unsuspend: "unsuspended",
  create: "created",
  dismiss: "dismissed",
  reopen: "reopened",
  resolve: "resolved",
  requested_action: "action requested",
  ready_for_review: "marked ready for review",
  promote_to_enterprise: "promoted to enterprise",
  pending_change: "change pending",
  pending_change_cancelled: "pending change cancelled",
  pending_cancellation: "cancellation pending",
  pending_tier_change: "tier change pending",
  auto_merge_enabled: "auto-merge enabled",
  auto_merge_disabled: "auto-merge disabled",
  auto_dismissed: "dismissed automatically",
  auto_reopened: "reopened automatically",
  rerequested: "re-requested",
};

/** Whole names where resource + action would not read as a sentence. */
const NAMES: Record<string, string> = {
  create: "Branch or tag created",
  delete: "Branch or tag deleted",
  fork: "Repository forked",
  gollum: "Wiki page created or edited",
  page_build: "GitHub Pages site built",
  ping: "Webhook pinged",
  public: "Repository made public",
  push: "Commits pushed",
  status: "Commit status changed",
  repository_dispatch: "Repository dispatch received",
  repository_import: "Repository imported",
  workflow_dispatch: "Workflow dispatched",
  security_and_analysis: "Security and analysis settings changed",
  team_add: "Team added to repository (team_add)",
  "watch.started": "Repository starred (watch)",
  "org_block.blocked": "User blocked from organization",
  "org_block.unblocked": "User unblocked from organization",
  "issue_dependencies.blocked_by_added": "Issue blocked-by dependency added",
  "issue_dependencies.blocked_by_removed": "Issue blocked-by dependency removed",
  "issue_dependencies.blocking_added": "Issue blocking dependency added",
  "issue_dependencies.blocking_removed": "Issue blocking dependency removed",
  "sub_issues.parent_issue_added": "Parent issue added",
  "sub_issues.parent_issue_removed": "Parent issue removed",
  "sub_issues.sub_issue_added": "Sub-issue added",
  "sub_issues.sub_issue_removed": "Sub-issue removed",
};

export function triggerDisplayName(event: string, action: string | undefined): string {
  const whole = NAMES[action ? `${event}.${action}` : event];
  if (whole) return whole;
  const resource = RESOURCES[event] ?? capitalized(words(event));
  return action ? `${resource} ${ACTIONS[action] ?? words(action)}` : resource;
}

/** GitHub's prose, first sentence, links and markdown flattened. */
function firstSentence(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const plain = text
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .replace(/\s+/g, " ")
    .trim();
  const match = /^(.+?[.!?])(\s|$)/.exec(plain);
  return (match ? match[1] : plain).slice(0, 300);
}

const IDENTIFYING = new Set(["id", "login", "name", "full_name", "number", "title", "state", "html_url", "type", "ref", "sha", "status", "conclusion", "created_at"]);

/**
 * A payload's outline, small enough for the catalog (GitHub's full examples weigh 1.5 MB): every
 * top-level member, and the identifying fields of what they hold. Real deliveries carry all of it.
 */
function abridge(value: unknown, depth = 0): unknown {
  if (Array.isArray(value)) return value.slice(0, 1).map((v) => abridge(v, depth));
  if (value === null || typeof value !== "object") return typeof value === "string" && value.length > 120 ? `${value.slice(0, 120)}…` : value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (depth === 0) return Object.fromEntries(entries.map(([k, v]) => [k, abridge(v, 1)]));
  const kept = entries.filter(([k, v]) => IDENTIFYING.has(k) && (depth === 1 || v === null || typeof v !== "object"));
  return Object.fromEntries(kept.map(([k, v]) => [k, abridge(v, depth + 1)]));
}

function loadExamples(): Map<string, Example> {
  const events = require("@octokit/webhooks-examples") as Array<{ name: string; examples: Example[] }>;
  const byKey = new Map<string, Example>();
  for (const event of events) {
    for (const example of event.examples) {
      const key = FREE_FORM_ACTIONS.has(event.name) || !example.action ? event.name : `${event.name}.${example.action}`;
      if (!byKey.has(key)) byKey.set(key, example);
    }
  }
  return byKey;
}

function loadOperations(): Map<string, OpenApiOperation> {
  const spec = require("@octokit/openapi-webhooks/generated/api.github.com.json") as {
    webhooks: Record<string, { post: OpenApiOperation }>;
  };
  // operationIds look like `check-run/requested-action`; event names like `check_run.requested_action`.
  return new Map(Object.values(spec.webhooks).map(({ post }) => [post.operationId.replaceAll("-", "_").replace("/", "."), post]));
}

export interface GeneratedTrigger {
  name: string;
  displayName: string;
  description: string;
  providerEvent: string;
  samplePayload: Record<string, unknown>;
}

export function githubTriggers(): GeneratedTrigger[] {
  const examples = loadExamples();
  const operations = loadOperations();
  const names = [...emitterEventNames] as string[];
  const hasActions = (event: string) => names.some((n) => n.startsWith(`${event}.`));
  const providerEvents = names.filter((n) => {
    const [event, action] = n.split(/\.(.*)/s);
    if (FREE_FORM_ACTIONS.has(event)) return action === undefined;
    // A bare name of an event with actions is an emitter wildcard, not something GitHub sends.
    return action !== undefined || !hasActions(event);
  });

  return providerEvents
    .filter((providerEvent) => !(providerEvent in ORIGINAL_TRIGGERS))
    .sort()
    .map((providerEvent) => {
      const [event, action] = providerEvent.split(".");
      const operation = operations.get(providerEvent);
      const eventSummary = firstSentence(operation?.summary) ?? firstSentence(operations.get(event)?.summary);
      const actionDescription = action ? firstSentence(operation?.description) : undefined;
      const description =
        [actionDescription, eventSummary].filter(Boolean).join(" ") || `GitHub sent a ${event} event${action ? ` with action ${action}` : ""}.`;
      const example = examples.get(providerEvent);
      const samplePayload = example
        ? (abridge(example) as Record<string, unknown>)
        : {
            ...(action ? { action } : {}),
            repository: { id: 1296269, name: "Hello-World", full_name: "octocat/Hello-World", owner: { id: 583231, login: "octocat" } },
            sender: { id: 583231, login: "octocat", type: "User" },
          };
      return {
        name: action ? `${event}_${action}` : event,
        displayName: triggerDisplayName(event, action),
        description,
        providerEvent,
        samplePayload,
      };
    });
}

export async function renderGitHubTriggers(): Promise<string> {
  const triggers = githubTriggers();
  const body = JSON.stringify(triggers, null, 2);
  return `// Generated by scripts/generate-github-triggers.ts from @octokit/webhooks (emitterEventNames),
// @octokit/openapi-webhooks (descriptions) and @octokit/webhooks-examples (abridged samples).
// Do not edit: run \`npx tsx scripts/generate-github-triggers.ts\`.
import type { ConnectorDeclarationInput } from "../../declaration.ts";

export const githubEventTriggers: NonNullable<ConnectorDeclarationInput["triggers"]> = ${body};
`;
}
