// Prints the code-first schema to schema.graphql (committed; test/graphql/schema.test.ts fails when they differ).
import { writeFileSync } from "node:fs";
import { printSchemaFile } from "../src/graphql/printSchema.ts";

writeFileSync(new URL("../schema.graphql", import.meta.url), printSchemaFile());
console.log("schema.graphql written");
