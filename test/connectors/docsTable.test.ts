import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { withConnectorTable } from "../../scripts/connectorTable.ts";

test("docs/connectors.md lists every connector as the registry declares it (run `npm run docs:connectors`)", () => {
  const doc = readFileSync(new URL("../../docs/connectors.md", import.meta.url), "utf8");
  expect(doc, "the generated table is stale: run `npm run docs:connectors`").toBe(withConnectorTable(doc));
});
