import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { withPolledTable } from "../../scripts/polledTable.ts";
import { allConnectors } from "../../src/connectors/registry.ts";

const connectors = allConnectors();

test("docs/polling.md lists every polled trigger as the registry declares it (run `npm run docs:connectors`)", () => {
  const doc = readFileSync(new URL("../../docs/polling.md", import.meta.url), "utf8");
  expect(doc, "the generated table is stale: run `npm run docs:connectors`").toBe(withPolledTable(doc));
  for (const c of connectors) {
    for (const trigger of Object.keys(c.declaration.polling?.triggers ?? {})) expect(doc).toContain(`| \`${c.name}\` | \`${trigger}\` |`);
  }
});
