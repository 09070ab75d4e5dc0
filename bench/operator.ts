/**
 * What every benchmark needs first: an operator signed up through the service's GraphQL API, with
 * an organization (development + production deployments). Plain GraphQL strings, so a fresh clone
 * runs the benchmarks without the typed documents that only the test run generates.
 */
import { randomBytes } from "node:crypto";

export async function gql<T>(base: string, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(`${base}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const result = (await response.json()) as { data?: T; errors?: unknown[] };
  if (result.errors?.length || !result.data) throw new Error(`GraphQL failed: ${JSON.stringify(result.errors)}`);
  return result.data;
}

export interface BenchOperator {
  token: string;
  development: string;
  production: string;
  /** Runs a GraphQL document as this operator (their session token). */
  gql<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
  /** A fresh API key for one of the operator's deployments. */
  apiKey(deploymentId: string): Promise<string>;
}

export async function createBenchOperator(base: string): Promise<BenchOperator> {
  const { signUp } = await gql<{ signUp: { token: string } }>(
    base,
    "mutation($email: String!, $password: String!, $name: String!) { signUp(email: $email, password: $password, name: $name) { token } }",
    { email: `bench-${randomBytes(4).toString("hex")}@example.com`, password: "benchmark password", name: "Bench" },
  );
  const as = <T>(query: string, variables: Record<string, unknown> = {}) => gql<T>(base, query, variables, { authorization: `Bearer ${signUp.token}` });
  const { createOrganization } = await as<{ createOrganization: { deployments: { id: string; name: string }[] } }>(
    "mutation($name: String!) { createOrganization(name: $name) { deployments { id name } } }",
    { name: "Bench org" },
  );
  const deployment = (name: string) => createOrganization.deployments.find((d) => d.name === name)!.id;
  return {
    token: signUp.token,
    development: deployment("development"),
    production: deployment("production"),
    gql: as,
    apiKey: async (deploymentId) =>
      (await as<{ generateApiKey: { apiKey: string } }>("mutation($id: ID!) { generateApiKey(deploymentId: $id) { apiKey } }", { id: deploymentId }))
        .generateApiKey.apiKey,
  };
}
