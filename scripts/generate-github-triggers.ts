/**
 * Regenerates src/connectors/providers/github/events.generated.ts: one trigger per webhook
 * event/action pair GitHub documents, and one per event without actions (or with free-form ones),
 * taken from GitHub's own npm data — never by hand:
 *
 * - the list: `emitterEventNames` of @octokit/webhooks (the event/action pairs GitHub sends);
 * - the words: GitHub's webhooks OpenAPI description (@octokit/openapi-webhooks, api.github.com);
 * - the sample payloads: the first matching delivery in @octokit/webhooks-examples, abridged.
 *
 * Run: `npx tsx scripts/generate-github-triggers.ts` (after upgrading those packages).
 * test/connectors/githubCatalog.test.ts fails when the committed file is stale.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderGitHubTriggers } from "./githubTriggers.ts";

const target = fileURLToPath(new URL("../src/connectors/providers/github/events.generated.ts", import.meta.url));
writeFileSync(target, await renderGitHubTriggers());
console.log(`wrote ${target}`);
