import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { printSchemaFile } from "../../src/graphql/printSchema.ts";

test("schema.graphql is the schema the code builds (run `npm run print-schema` after changing src/graphql)", () => {
  const committed = readFileSync(new URL("../../schema.graphql", import.meta.url), "utf8");
  expect(committed).toBe(printSchemaFile());
});
