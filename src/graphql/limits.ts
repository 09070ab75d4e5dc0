import { type DocumentNode, getNamedType, getNullableType, GraphQLError, type GraphQLSchema, isLeafType, isListType, type ValueNode, visit } from "graphql";
import { type ComplexityEstimator, getComplexity } from "graphql-query-complexity";
import type { Plugin } from "graphql-yoga";

/**
 * The cost limit of one GraphQL operation, checked with its variables before anything runs
 * (docs/security.md, "GraphQL limits").
 *
 * The cost is an upper estimate of what the response holds: every scalar field selected counts 1
 * and every object 2 (a row to fetch), times the size of the lists around it. A list's size is its `limit` or `first` argument (with
 * the argument's default when left out); a list without one counts as `listSizes` says. Fields of
 * a `…Connection` are one page: the field that returned the connection was already multiplied by
 * its page size. A few fields add the price of the statements behind them (`statementCosts`).
 */
export const MAX_QUERY_COST = 10_000;

/** Lists that take no size argument, at the size they reach in practice. */
const listSizes: Record<string, number> = {
  // One forwarding URL per deployment: an event has one delivery.
  "TriggerEvent.deliveries": 1,
  // The default retry schedule makes 8 attempts.
  "Delivery.attemptLog": 8,
  "Connector.triggers": 50,
  "Deployment.connectedAccounts": 50,
};
const DEFAULT_LIST_SIZE = 10;

/**
 * Fields priced by the statements behind them as well as by what they return: each reads a
 * deployment's history, whose size no argument bounds. `eventLog(first: 1)` with a filter that
 * matches nothing (an unknown connector) may read every event of the deployment, and
 * `deliveryStats` aggregates every delivery and attempt of its window. At these prices one
 * operation holds at most nine of them (twenty aliases of either were one tenant stalling the
 * shared database), while a page of the console with one of each stays far under the limit.
 */
const statementCosts: Record<string, (args: Record<string, unknown>) => number> = {
  "Deployment.eventLog": () => 1_000,
  // Grows with the window: a week (the most `hours` allows) costs 2,680.
  "Deployment.deliveryStats": (args) => 1_000 + 10 * (typeof args.hours === "number" ? Math.max(1, args.hours) : 24),
};

const estimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  // Introspection (when enabled) and __typename, which clients add everywhere, are free.
  if (field.name.startsWith("__")) return 0;
  const size = args.limit ?? args.first;
  const own = isLeafType(getNamedType(field.type)) ? 1 : 2;
  let multiplier = 1;
  if (typeof size === "number") {
    // A negative or zero size is refused by the resolver; it must not make the cost negative.
    multiplier = Math.max(1, size);
  } else if (!type.name.endsWith("Connection")) {
    const returned = getNullableType(field.type);
    if (isListType(returned) && !isLeafType(getNamedType(returned))) multiplier = listSizes[`${type.name}.${field.name}`] ?? DEFAULT_LIST_SIZE;
  }
  return multiplier * (own + childComplexity) + (statementCosts[`${type.name}.${field.name}`]?.(args) ?? 0);
};

/** The estimated cost of the operation, or undefined when its variables do not even coerce (execution says why). */
export function queryCost(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null, variables?: Record<string, unknown> | null): number | undefined {
  try {
    return getComplexity({ schema, query: document, operationName: operationName ?? undefined, variables: variables ?? undefined, estimators: [estimator] });
  } catch (error) {
    if (error instanceof GraphQLError) return undefined;
    throw error;
  }
}

/**
 * Costs already computed for a document (yoga's parser cache hands out one DocumentNode per query
 * text). A cost depends on the variables only through list sizes (`limit`/`first`) and
 * `@include`/`@skip`, so it is remembered per value of just those variables: the console's pages
 * differ in offsets and ids, not in sizes. Only costs are remembered, never "does not coerce": a
 * request with a bad variable must not let a later one skip the check.
 */
type RememberedCosts = WeakMap<DocumentNode, { sizeVariables: string[]; costs: Map<string, number> }>;
const MAX_REMEMBERED_COSTS_PER_DOCUMENT = 256;

function sizeVariablesOf(document: DocumentNode): string[] {
  const names = new Set<string>();
  const collect = (node: ValueNode) =>
    visit(node, {
      Variable(variable) {
        names.add(variable.name.value);
      },
    });
  visit(document, {
    Argument(argument) {
      if (argument.name.value === "limit" || argument.name.value === "first") collect(argument.value);
    },
    Directive(directive) {
      if (directive.name.value === "include" || directive.name.value === "skip") for (const argument of directive.arguments ?? []) collect(argument.value);
    },
  });
  return [...names].sort();
}

function rememberedCost(rememberedCosts: RememberedCosts, schema: GraphQLSchema, document: DocumentNode, operationName?: string | null, variables?: Record<string, unknown> | null): number | undefined {
  let remembered = rememberedCosts.get(document);
  if (!remembered) rememberedCosts.set(document, (remembered = { sizeVariables: sizeVariablesOf(document), costs: new Map() }));
  const key = JSON.stringify([operationName ?? null, ...remembered.sizeVariables.map((name) => (variables && name in variables ? [variables[name]] : []))]);
  let cost = remembered.costs.get(key);
  if (cost === undefined) {
    cost = queryCost(schema, document, operationName, variables);
    if (cost === undefined) return undefined;
    if (remembered.costs.size >= MAX_REMEMBERED_COSTS_PER_DOCUMENT) remembered.costs.clear();
    remembered.costs.set(key, cost);
  }
  return cost;
}

/** The error that refuses an operation over the budget, or undefined when it may run. */
function costLimitError(
  rememberedCosts: RememberedCosts,
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
  variables?: Record<string, unknown> | null,
): GraphQLError | undefined {
  const cost = rememberedCost(rememberedCosts, schema, document, operationName, variables);
  if (cost === undefined || cost <= MAX_QUERY_COST) return undefined;
  return new GraphQLError(
    `The operation is too large: its estimated cost is ${cost}, above the limit of ${MAX_QUERY_COST} (about one per value in the response). ` +
      "Ask for fewer items (limit/first), fewer fields or fewer aliases, or split it into several requests.",
    { extensions: { code: "BAD_USER_INPUT", cost, maxCost: MAX_QUERY_COST } },
  );
}

/**
 * The cost check, with the costs it remembers (one per app): `plugin` runs it before execution and
 * before a subscription starts; `error` is the same check for graphql-ws's onSubscribe.
 */
export function createCostLimit() {
  const rememberedCosts: RememberedCosts = new WeakMap();
  const error = (schema: GraphQLSchema, document: DocumentNode, operationName?: string | null, variables?: Record<string, unknown> | null) =>
    costLimitError(rememberedCosts, schema, document, operationName, variables);
  const plugin: Plugin = {
    onExecute: ({ args, setResultAndStopExecution }) => {
      const refused = error(args.schema, args.document, args.operationName, args.variableValues);
      if (refused) setResultAndStopExecution({ errors: [refused] });
    },
    onSubscribe: ({ args, setResultAndStopExecution }) => {
      const refused = error(args.schema, args.document, args.operationName, args.variableValues);
      if (refused) setResultAndStopExecution({ errors: [refused] });
    },
  };
  return { error, plugin };
}
export type CostLimit = ReturnType<typeof createCostLimit>;
