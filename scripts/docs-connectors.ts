/** Rewrites the generated connector table in docs/connectors.md (see connectorTable.ts). */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { withConnectorTable } from "./connectorTable.ts";

const file = fileURLToPath(new URL("../docs/connectors.md", import.meta.url));
writeFileSync(file, withConnectorTable(readFileSync(file, "utf8")));
console.log(`updated ${file}`);
