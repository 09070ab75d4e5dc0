import type { CodegenConfig } from "@graphql-codegen/cli";

// Typed documents for the tests and the console, generated from the committed schema.graphql.
const config: CodegenConfig = {
  schema: "schema.graphql",
  documents: ["test/**/*.ts", "console/src/**/*.{ts,tsx}", "!src/generated/**", "!test/generated/**", "!console/src/generated/**"],
  ignoreNoDocuments: true,
  emitLegacyCommonJSImports: false,
  generates: {
    "test/generated/": {
      preset: "client",
      documents: ["test/**/*.ts", "!test/generated/**"],
      presetConfig: { fragmentMasking: false },
      config: { useTypeImports: true, enumsAsTypes: true, scalars: { DateTime: "string", JSON: "unknown" } },
    },
    "console/src/generated/": {
      preset: "client",
      documents: ["console/src/**/*.{ts,tsx}", "!console/src/generated/**"],
      presetConfig: { fragmentMasking: false },
      config: { useTypeImports: true, enumsAsTypes: true, scalars: { DateTime: "string", JSON: "unknown" } },
    },
  },
};

export default config;
