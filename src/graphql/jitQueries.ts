import { type DocumentNode, type ExecutionArgs, type ExecutionResult, getOperationAST } from "graphql";
import { type CompiledQuery, compileQuery, isCompiledQuery } from "graphql-jit";
import type { Plugin } from "graphql-yoga";

/**
 * Queries of the JSON fast path (./jsonPost.ts) run as graphql-jit compiled functions, compiled
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
 * test/graphql/jsonPost.test.ts, comparing the two answer by answer, compares the executors too.
 */
export function useJitQueries(): Plugin & { serve(request: object): void } {
  const requests = new WeakSet<object>();
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

  return {
    serve: (request) => requests.add(request),
    onExecute: ({ args, executeFn, setExecuteFn }) => {
      const request = (args.contextValue as { request?: object }).request;
      if (!request || !requests.has(request)) return;
      const query = compiledFor(args);
      if (!query) return;
      setExecuteFn((executionArgs) => {
        // yoga's own executor (@graphql-tools/executor over graphql-js), with its error details.
        const fallback = (result: ExecutionResult) => (result.errors ? executeFn(executionArgs) : result);
        const result = query.query(executionArgs.rootValue, executionArgs.contextValue, executionArgs.variableValues);
        return result instanceof Promise ? result.then(fallback) : fallback(result);
      });
    },
  };
}
