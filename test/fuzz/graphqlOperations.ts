import fc from "fast-check";
import {
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
} from "graphql";
import { hostileJson, hostileNumber, hostileString } from "./values.ts";

/** One root field as an operation: its document (arguments as variables) and a generator of variables. */
export interface FuzzOperation {
  name: string;
  kind: "query" | "mutation";
  query: string;
  variables: fc.Arbitrary<Record<string, unknown>>;
}

/** Values a well-formed caller would send, so generated inputs also reach the code past validation. */
export interface KnownValues {
  ids: string[];
  strings: string[];
}

/**
 * Every Query and Mutation root field of the schema, read at run time: fields other helpers add
 * are fuzzed without anyone listing them. Arguments are variables of the declared types, filled
 * with hostile or plausible values (and now and then a value of the wrong type); the selection is
 * the return type's argument-free scalar fields.
 */
export function operationsOf(schema: GraphQLSchema, known: KnownValues): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [kind, root] of [["query", schema.getQueryType()], ["mutation", schema.getMutationType()]] as const) {
    if (!root) continue;
    for (const field of Object.values(root.getFields())) operations.push(operationOf(kind, field, known));
  }
  return operations;
}

function operationOf(kind: "query" | "mutation", field: GraphQLField<unknown, unknown>, known: KnownValues): FuzzOperation {
  const definitions = field.args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(", ");
  const args = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(", ");
  const query = `${kind} Fuzz_${field.name}${definitions ? `(${definitions})` : ""} { ${field.name}${args ? `(${args})` : ""}${selectionOf(field.type)} }`;
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const arg of field.args) model[arg.name] = valueOf(arg.type, known, 0);
  const variables = fc.oneof(
    { weight: 12, arbitrary: fc.record(model) as fc.Arbitrary<Record<string, unknown>> },
    { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>> },
    { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...field.args.map((a) => a.name), "extra"), hostileJson) },
  );
  return { name: field.name, kind, query, variables };
}

function selectionOf(type: GraphQLOutputType): string {
  const named = getNamedType(type);
  if (isUnionType(named)) return " { __typename }";
  if (!isObjectType(named) && !isInterfaceType(named)) return "";
  const scalars = Object.values(named.getFields())
    .filter((f) => f.args.every((a) => !isNonNullType(a.type)))
    .filter((f) => {
      const inner = getNamedType(f.type);
      return isScalarType(inner) || isEnumType(inner);
    })
    .map((f) => f.name);
  return ` { __typename ${scalars.join(" ")} }`;
}

function valueOf(type: GraphQLInputType, known: KnownValues, depth: number): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return fc.oneof({ weight: 15, arbitrary: valueOf(type.ofType, known, depth) }, { weight: 1, arbitrary: fc.constant(null) });
  const wrongType = { weight: 1, arbitrary: hostileJson };
  if (isListType(type)) {
    return fc.oneof({ weight: 10, arbitrary: fc.array(valueOf(type.ofType, known, depth + 1), { maxLength: depth > 1 ? 1 : 4 }) }, fc.constant(null), wrongType);
  }
  if (isEnumType(type)) return fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...type.getValues().map((v) => v.name)) }, { weight: 1, arbitrary: hostileString });
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const f of fields) model[f.name] = depth > 3 ? fc.constant(null) : valueOf(f.type, known, depth + 1);
    const required = fields.filter((f) => isNonNullType(f.type)).map((f) => f.name);
    return fc.oneof({ weight: 12, arbitrary: fc.record(model, { requiredKeys: required }) }, wrongType);
  }
  switch (type.name) {
    case "ID":
      return fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...known.ids) }, { weight: 3, arbitrary: hostileString }, { weight: 1, arbitrary: fc.integer().map(String) });
    case "String":
      return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known.strings) }, { weight: 5, arbitrary: hostileString }, wrongType);
    case "Int":
    case "Float":
      return fc.oneof({ weight: 8, arbitrary: hostileNumber }, wrongType);
    case "Boolean":
      return fc.oneof({ weight: 8, arbitrary: fc.boolean() }, wrongType);
    case "DateTime":
      return fc.oneof(
        { weight: 4, arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()) },
        { weight: 3, arbitrary: hostileString },
        wrongType,
      );
    default:
      // JSON and any scalar added later.
      return hostileJson;
  }
}
