import { type DocumentNode, getNullableType, isEnumType, isInputObjectType, isListType, isNonNullType, Kind, type GraphQLInputType, type GraphQLSchema, type TypeNode, typeFromAST } from "graphql";
import * as consoleDocuments from "../../console/src/generated/graphql.ts";
import * as testDocuments from "../generated/graphql.ts";

/** Every typed document of the console and of the tests, by operation name. */
export function allDocuments(): { source: string; name: string; document: DocumentNode }[] {
  const pick = (source: string, module: Record<string, unknown>) =>
    Object.entries(module)
      .filter(([name, value]) => name.endsWith("Document") && typeof value === "object" && value !== null && (value as DocumentNode).kind === Kind.DOCUMENT)
      .map(([name, document]) => ({ source, name: name.replace(/Document$/, ""), document: document as DocumentNode }));
  return [...pick("console", consoleDocuments), ...pick("test", testDocuments)];
}

/**
 * Variables for the largest answer an operation may give: page sizes (`limit`, `first`) at their
 * maximum of 100, everything else at a valid placeholder.
 */
export function largestVariables(schema: GraphQLSchema, document: DocumentNode): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const variable of definition.variableDefinitions ?? []) {
      const type = typeFromAST(schema, variable.type as TypeNode & { kind: Kind.NAMED_TYPE }) as GraphQLInputType;
      variables[variable.variable.name.value] = placeholder(type, variable.variable.name.value);
    }
  }
  return variables;
}

function placeholder(type: GraphQLInputType, name: string): unknown {
  const inner = isNonNullType(type) ? getNullableType(type) : type;
  if (isListType(inner)) return [placeholder(inner.ofType, name)];
  if (isEnumType(inner)) return inner.getValues()[0].value;
  if (isInputObjectType(inner)) {
    return Object.fromEntries(Object.values(inner.getFields()).filter((field) => isNonNullType(field.type)).map((field) => [field.name, placeholder(field.type, field.name)]));
  }
  switch (inner.name) {
    case "Int":
      return name === "limit" || name === "first" ? 100 : 1;
    case "Float":
      return 1;
    case "Boolean":
      return true;
    case "DateTime":
      return "2026-01-01T00:00:00.000Z";
    case "JSON":
      return {};
    default:
      return "1";
  }
}
