import { createSchema, createYoga } from "graphql-yoga";
import { describe, expect, test } from "vitest";
import { useJitQueries } from "../../src/graphql/jitQueries.ts";

// Queries the fast path marks run compiled by graphql-jit; an answer with any error is replaced by
// graphql-js's. Each request below is answered twice by the same yoga: marked (compiled) and not
// (graphql-js), and the two answers must be equal.

function setUp() {
  const calls = { items: 0, bump: 0 };
  const schema = createSchema({
    typeDefs: /* GraphQL */ `
      type Item { id: Int!, name: String, count: Int }
      type Query { items(limit: Int!): [Item!]!, item(id: ID!): Item }
      type Mutation { bump(by: Int!): Int }
    `,
    resolvers: {
      Query: {
        items: (_root: unknown, { limit }: { limit: number }) => {
          calls.items++;
          // The third item's count is not an Int and the fourth's id is null: field errors inside a list.
          return [
            { id: 1, name: "one", count: 1 },
            { id: 2, name: "two", count: 2 },
            { id: 3, name: "three", count: "many" },
            { id: null, name: "four", count: 4 },
          ].slice(0, limit);
        },
        item: async (_root: unknown, { id }: { id: string }) => ({ id: Number(id), name: `item ${id}`, count: { not: "an int" } }),
      },
      Mutation: {
        bump: () => {
          calls.bump++;
          return "not a number";
        },
      },
    },
  });
  const jit = useJitQueries();
  const yoga = createYoga({ schema, plugins: [jit], maskedErrors: false, logging: false });
  const answer = async (params: { query: string; variables?: Record<string, unknown> }, compiled: boolean) => {
    const request = new Request("http://localhost/graphql", { method: "POST" });
    if (compiled) jit.serve(request);
    return JSON.parse(JSON.stringify(await yoga.getResultForParams({ params, request }, {})));
  };
  const bothWays = async (params: { query: string; variables?: Record<string, unknown> }) => {
    const compiled = await answer(params, true);
    expect(compiled).toEqual(await answer(params, false));
    return compiled;
  };
  return { calls, answer, bothWays };
}

describe("compiled queries answer as graphql-js does", () => {
  test("an error-free query runs once, compiled", async () => {
    const { calls, bothWays } = setUp();
    const answer = await bothWays({ query: "query($n: Int!) { items(limit: $n) { id name } }", variables: { n: 2 } });
    expect(answer).toEqual({ data: { items: [{ id: 1, name: "one" }, { id: 2, name: "two" }] } });
    expect(calls.items).toBe(2); // once per way
  });

  test("a wrong type and a null in a list keep graphql-js's messages and paths (with the index)", async () => {
    const { calls, answer, bothWays } = setUp();
    const wrongType = await bothWays({ query: "{ items(limit: 3) { id count } }" });
    expect(wrongType.errors).toEqual([expect.objectContaining({ message: 'Int cannot represent non-integer value: "many"', path: ["items", 2, "count"] })]);
    const nullInList = await bothWays({ query: "{ items(limit: 4) { id } }" });
    expect(nullInList).toEqual({
      data: null,
      errors: [expect.objectContaining({ message: "Cannot return null for non-nullable field Item.id.", path: ["items", 3, "id"] })],
    });
    await bothWays({ query: '{ item(id: "7") { name count } }' });

    calls.items = 0;
    await answer({ query: "{ items(limit: 3) { id count } }" }, true);
    expect(calls.items).toBe(2); // compiled, then again on graphql-js for its answer
  });

  test("variables that do not coerce keep graphql-js's messages", async () => {
    const { bothWays } = setUp();
    const wrongType = await bothWays({ query: "query($n: Int!) { items(limit: $n) { id } }", variables: { n: "two" } });
    expect(wrongType.errors[0].message).toBe('Variable "$n" got invalid value "two"; Int cannot represent non-integer value: "two"');
    await bothWays({ query: "query($n: Int!) { items(limit: $n) { id } }", variables: {} });
    await bothWays({ query: "query($n: Int!) { items(limit: $n) { id } }", variables: { n: 2.5 } });
    await bothWays({ query: 'query($id: ID!) { item(id: $id) { id } }', variables: { id: { nested: true } } });
  });

  test("a mutation is never compiled, so never run twice", async () => {
    const { calls, answer } = setUp();
    const result = await answer({ query: "mutation { bump(by: 1) }" }, true);
    expect(result.errors[0].message).toBe('Int cannot represent non-integer value: "not a number"');
    expect(calls.bump).toBe(1);
  });
});
