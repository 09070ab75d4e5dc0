/**
 * The credential check sends the request the connector declares (credentials.test): its method,
 * path and query, its own headers and JSON body, with the typed credential where the API takes it.
 * No shipped connector declares a query, headers or a body for its check yet; this one does, so
 * the first that needs them (a GraphQL API's `{"query": …}`) finds them working.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createCredentialCheck } from "../../src/connect/credentials.ts";
import postmark from "../../src/connectors/providers/postmark/index.ts";
import { loadConnectors } from "../../src/connectors/registry.ts";

const seen: Array<{ method?: string; url?: string; headers: IncomingMessage["headers"]; body: string }> = [];
const provider = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: { viewer: { id: "srv-42", name: "Outbound" } } }));
  });
});
beforeAll(() => new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve)));
afterAll(() => provider.close());

test("a declared method, query, headers and JSON body reach the provider, with the credential", async () => {
  const [def] = loadConnectors([
    {
      ...postmark,
      credentials: {
        ...postmark.credentials!,
        test: {
          method: "POST",
          path: "/graphql?from=path",
          query: { operation: "viewer" },
          headers: { "x-api-version": "2024-01" },
          body: { query: "{ viewer { id name } }" },
          idPath: "data.viewer.id",
          displayNamePath: "data.viewer.name",
        },
      },
    },
  ]);
  const check = createCredentialCheck({
    config: { env: "test", connectorEnv: { CONNECTOR_POSTMARK_API_URL: `http://127.0.0.1:${(provider.address() as AddressInfo).port}` } },
  });
  const token = "00000000-0000-4000-8000-00000000abcd";

  const result = await check.check(def, {}, new URLSearchParams({ server_token: ` ${token}\n` }));

  expect(result).toEqual({ ok: true, credential: token, identity: { externalId: "srv-42", displayName: "Outbound" }, params: {} });
  expect(seen).toHaveLength(1);
  const [request] = seen;
  expect(request.method).toBe("POST");
  expect(request.url).toBe("/graphql?from=path&operation=viewer");
  expect(request.headers).toMatchObject({
    "x-postmark-server-token": token,
    "x-api-version": "2024-01",
    "content-type": "application/json",
    accept: "application/json",
  });
  expect(JSON.parse(request.body)).toEqual({ query: "{ viewer { id name } }" });
});
