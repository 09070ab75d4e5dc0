/**
 * The catalog's size and its paper trail: every connector beyond the hand-converted first four has
 * a section in docs/connectors-research.md saying where its facts came from (and which could not
 * be confirmed), so a connector cannot be added without its sources.
 */
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { allConnectors } from "../../src/connectors/registry.ts";

const connectors = allConnectors();

const FIRST_RELEASE = new Set(["gmail", "github", "jira", "slack"]);

test("the catalog holds at least 30 connectors, at least 15 of them with triggers", () => {
  expect(connectors.length).toBeGreaterThanOrEqual(30);
  expect(connectors.filter((c) => c.triggers.length > 0).length).toBeGreaterThanOrEqual(15);
});

test("every connector added since the first release has its sources in docs/connectors-research.md", () => {
  const notes = readFileSync(new URL("../../docs/connectors-research.md", import.meta.url), "utf8");
  const documented = new Set([...notes.matchAll(/^## .*$/gm)].flatMap((heading) => [...heading[0].matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1])));
  expect(connectors.map((c) => c.name).filter((name) => !FIRST_RELEASE.has(name) && !documented.has(name))).toEqual([]);
});
