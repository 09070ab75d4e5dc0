/** Rewrites the generated tables: connectors in docs/connectors.md (connectorTable.ts), polled triggers in docs/polling.md (polledTable.ts). */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { withConnectorTable } from "./connectorTable.ts";
import { withPolledTable } from "./polledTable.ts";

for (const [name, rewrite] of [
  ["connectors.md", withConnectorTable],
  ["polling.md", withPolledTable],
] as const) {
  const file = fileURLToPath(new URL(`../docs/${name}`, import.meta.url));
  writeFileSync(file, rewrite(readFileSync(file, "utf8")));
  console.log(`updated ${file}`);
}
