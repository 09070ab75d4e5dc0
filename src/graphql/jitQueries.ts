import { type DocumentNode, type ExecutionArgs, type ExecutionResult, getOperationAST } from "graphql";
import { type CompiledQuery, compileQuery, isCompiledQuery } from "graphql-jit";
import type { Plugin } from "graphql-yoga";

/**
 * A query yoga has parsed, validated and executed for a query text (and operation name): the
 * fast path (./plainRequests.ts) runs the same text again without going through parse and validation.
 */
export interface PreparedQuery {
  document: DocumentNode;
  operationName: string | undefined;
  compiled: CompiledQuery;
}

const MAX_PREPARED_QUERIES = 1_000;

/**
 * Queries of the plain-request fast path (./plainRequests.ts) run as graphql-jit compiled functions, compiled
 * once per document and operation; everything else runs on yoga's executor (graphql-js) as before.
 *
 * graphql-jit words some errors differently (a resolver's value of the wrong type, variables that
 * do not coerce) and drops list indexes from some error paths, and error answers are part of the
 * API. So a compiled query is trusted only with an answer that has no error: with any error, the
 * operation runs again on yoga's executor and its answer is the one given. A query has no side
 * effects, so running it twice changes nothing but the time the rare failing request takes.
 * Mutations and subscriptions never run here: they are not safe to repeat.
 *
 * Only requests the fast path marks (`serve`) are compiled, so yoga's own path stays as it was and
 * test/graphql/plainRequests.test.ts, comparing the two answer by answer, compares the executors too.
 * Their compiled queries are remembered by query text and operation name (`prepared`), for the
 * fast path to run the next request of the same text itself.
 */
export function useJitQueries(): Plugin & { serve(request: object): void; prepared(query: string, operationName: string | null | undefined): PreparedQuery | undefined } {
  const requests = new WeakSet<object>();
  // Query text → operation name (null for none; "" is a name no operation has) → what yoga parsed,
  // validated and compiled for it.
  const preparedQueries = new Map<string, Map<string | null, PreparedQuery>>();
  // Per document (yoga's parser cache hands out one per query text) and operation name: the
  // compiled query, or null when it is not a query or graphql-jit cannot compile it.
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();

  const compiledFor = (args: ExecutionArgs): CompiledQuery | null => {
    const name = args.operationName ?? "";
    let byName = compiled.get(args.document);
    if (!byName) compiled.set(args.document, (byName = new Map()));
    let query = byName.get(name);
    if (query === undefined) {
      const operation = getOperationAST(args.document, args.operationName);
      const result = operation?.operation === "query" ? compileQuery(args.schema, args.document, args.operationName ?? undefined) : undefined;
      query = result && isCompiledQuery(result) ? result : null;
      byName.set(name, query);
    }
    return query;
  };

  // Only documents that reached execution are remembered: yoga executes nothing that failed to
  // parse (armor's token limit included) or to validate (armor's depth, alias and directive limits,
  // introspection when it is off), and both are properties of the query text alone.
  const remember = (params: { query?: unknown } | undefined, args: ExecutionArgs, query: CompiledQuery) => {
    if (typeof params?.query !== "string") return;
    let byName = preparedQueries.get(params.query);
    if (!byName) {
      // Clients send a handful of distinct queries: remember them, within reason.
      if (preparedQueries.size >= MAX_PREPARED_QUERIES) preparedQueries.clear();
      preparedQueries.set(params.query, (byName = new Map()));
    }
    byName.set(args.operationName ?? null, { document: args.document, operationName: args.operationName ?? undefined, compiled: query });
  };

  return {
    serve: (request) => requests.add(request),
    prepared: (query, operationName) => preparedQueries.get(query)?.get(operationName ?? null),
    onExecute: ({ args, executeFn, setExecuteFn }) => {
      const context = args.contextValue as { request?: object; params?: { query?: unknown } };
      const request = context.request;
      if (!request || !requests.has(request)) return;
      const query = compiledFor(args);
      if (!query) return;
      remember(context.params, args, query);
      setExecuteFn((executionArgs) => {
        // yoga's own executor (@graphql-tools/executor over graphql-js), with its error details.
        const fallback = (result: ExecutionResult) => (result.errors ? executeFn(executionArgs) : result);
        const result = query.query(executionArgs.rootValue, executionArgs.contextValue, executionArgs.variableValues);
        return result instanceof Promise ? result.then(fallback) : fallback(result);
      });
    },
  };
}
