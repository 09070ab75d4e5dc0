import { lexicographicSortSchema, printSchema } from "graphql";
import { schema } from "./schema.ts";

export function printSchemaFile(): string {
  return `# Printed from the Pothos schema by \`npm run print-schema\`. Do not edit by hand.\n\n${printSchema(lexicographicSortSchema(schema))}\n`;
}
