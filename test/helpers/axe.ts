import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { AxeResults, NodeResult, Result, RunOptions } from "axe-core";
import type { Page } from "playwright-core";
import { expect } from "vitest";

/**
 * axe-core in a real page: the WCAG 2.1 A and AA rules, run against what the browser shows.
 *
 * The source is evaluated through the devtools protocol rather than added as a <script>: the
 * console's CSP (`script-src 'self'`) and the connect pages' (`default-src 'none'`) would refuse an
 * inline script, and the pages are checked under their real headers.
 */
const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

export const WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/**
 * Results axe marks "needs review" are failures too, except for these rules, whose reviews are
 * about what axe cannot measure rather than what the page does wrong: contrast where the background
 * is covered (the sticky top bar, a toast) or the text is a symbol (✓, ⌄), and a label in name
 * for a symbol-only button (× named "Dismiss"). Anything else it is unsure of (an aria-label on a
 * <p>, two elements with one id) is a real problem.
 */
const REVIEWED_BY_HAND = new Set(["color-contrast", "label-content-name-mismatch"]);

/**
 * The violations on the page as it is now, one readable paragraph each: the rule, its impact,
 * what it asks, where to read how to fix it, and every element that breaks it with axe's own
 * summary of what to change. An empty list when the page passes.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(axeSource);
  const runOptions: RunOptions = { runOnly: { type: "tag", values: WCAG_21_AA }, resultTypes: ["violations", "incomplete"] };
  const results = await page.evaluate((opts) => {
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<AxeResults> } }).axe;
    return axe.run(document, opts);
  }, runOptions);
  const unsure = results.incomplete.filter((result) => !REVIEWED_BY_HAND.has(result.id));
  return [...results.violations.map((v) => describe(v, "")), ...unsure.map((v) => describe(v, ", needs review"))];
}

function describe(result: Result, kind: string): string {
  const nodes = result.nodes.map(describeNode).join("\n");
  return `${result.id} (${result.impact ?? "?"}${kind}): ${result.help}\n  how to fix: ${result.helpUrl}\n${nodes}`;
}

function describeNode(node: NodeResult): string {
  const summary = (node.failureSummary ?? "").replace(/\n\s*/g, " ").trim();
  return `  at ${node.target.join(" ")}\n    ${node.html.slice(0, 200)}\n    ${summary}`;
}

/**
 * Fails with every violation spelled out, naming the page it was found on. `soft`: the test goes
 * on (and fails at its end), so a story that checks page after page reports every page at once.
 */
export async function expectNoAxeViolations(page: Page, where: string, options: { soft?: boolean } = {}): Promise<void> {
  const violations = await axeViolations(page);
  if (!violations.length) return;
  const report = `${violations.length} accessibility violation(s) on ${where}:\n\n${violations.join("\n\n")}`;
  if (options.soft) expect.soft(report, `accessibility of ${where}`).toBe("no violations");
  else throw new Error(report);
}
