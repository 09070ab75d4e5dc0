import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import type { ConnectionsQuery } from "../generated/graphql.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeGitHub, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/** The console's view of connections: keyset pages, filters, the new fields, and disconnecting through the same operation as REST. */

const Connections = graphql(`
  query Connections($id: ID!, $filter: ConnectionFilter, $first: Int, $after: String) {
    deployment(id: $id) {
      connections(filter: $filter, first: $first, after: $after) {
        edges { cursor node { id account } }
        nodes { id account connector status displayName params metadata lastEventAt }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`);

const Detail = graphql(`
  query ConnectionDetail($id: ID!, $search: String) {
    deployment(id: $id) {
      connections(filter: { search: $search }, first: 1) {
        nodes { id account status displayName metadata recentEvents(first: 5) { id type } }
      }
    }
  }
`);

const Disconnect = graphql(`
  mutation DisconnectConnection($id: ID!) { disconnectAccount(id: $id) { id status } }
`);

let app: TestApp;
let github: FakeGitHub;
let ada: Operator;
let eve: Operator;

beforeAll(async () => {
  github = await startFakeGitHub();
  app = await startTestApp(github.env());
  [ada, eve] = await Promise.all([createOperator(app, "Ada"), createOperator(app, "Eve")]);
  github.setIdentity({ id: 1001, login: "alice-gh" });
  await connectAccount(app, ada, { connector: "github", account: "alice", provider: github });
  // Seven more sharing one creation time: the keyset must break ties by id, never skip or repeat.
  const createdAt = new Date(Date.UTC(2021, 5, 1));
  await app.database.prisma.connectedAccount.createMany({
    data: Array.from({ length: 7 }, (_, i) => ({ deploymentId: ada.deploymentId, connector: "github", account: `tied-${i}`, externalId: String(3000 + i), accessTokenEncrypted: "", createdAt })),
  });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await github?.close();
});

describe("Deployment.connections", () => {
  test("keyset pages newest first walk every connection exactly once", async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const result: ConnectionsQuery = ok(await app.gql(Connections, { id: ada.deploymentId, first: 3, after }, { token: ada.token }));
      const page = result.deployment!.connections;
      seen.push(...page.edges.map((edge) => edge.node.account));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor!;
    }
    expect(seen[0]).toBe("alice");
    expect(seen).toHaveLength(8);
    expect(new Set(seen).size).toBe(8);
    const direct = await app.database.prisma.connectedAccount.findMany({ where: { deploymentId: ada.deploymentId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
    expect(seen).toEqual(direct.map((row) => row.account));
  });

  test("filters, the new fields, recent events; bad filters and cursors are BAD_USER_INPUT", async () => {
    const nodes = async (filter: object) => ok(await app.gql(Connections, { id: ada.deploymentId, filter }, { token: ada.token })).deployment!.connections.nodes;
    const [alice] = await nodes({ search: "ALICE-GH" });
    expect(alice).toMatchObject({ account: "alice", status: "ACTIVE", displayName: "alice-gh", params: {}, metadata: { login: "alice-gh" }, lastEventAt: null });
    expect(await nodes({ status: "DISCONNECTED" })).toEqual([]);
    expect((await nodes({ connector: "github", search: "tied" })).length).toBe(7);

    const detail = ok(await app.gql(Detail, { id: ada.deploymentId, search: "alice" }, { token: ada.token })).deployment!.connections.nodes[0];
    expect(detail.recentEvents.map((e) => e.type)).toEqual(["switchyard.connection_created"]);

    for (const variables of [{ filter: { connector: "nope" } }, { first: 0 }, { first: 101 }, { after: "not-a-cursor" }]) {
      const result = await app.gql(Connections, { id: ada.deploymentId, ...variables }, { token: ada.token });
      expect(errorCode(result), JSON.stringify(variables)).toBe("BAD_USER_INPUT");
    }
  });

  test("another deployment's user and key see nothing (deployment(id) refuses them, as every deployment field)", async () => {
    expect(errorCode(await app.gql(Connections, { id: ada.deploymentId }, { token: eve.token }))).toBe("FORBIDDEN");
    expect(errorCode(await app.gql(Connections, { id: ada.deploymentId }, { apiKey: eve.apiKey }))).toBe("FORBIDDEN");
    expect(ok(await app.gql(Connections, { id: eve.deploymentId }, { token: eve.token })).deployment!.connections.nodes).toEqual([]);
  });
});

describe("disconnectAccount", () => {
  test("is the REST DELETE's operation: tokens forgotten, grant revoked, connection_deleted recorded", async () => {
    const [alice] = ok(await app.gql(Connections, { id: ada.deploymentId, filter: { search: "alice" } }, { token: ada.token })).deployment!.connections.nodes;
    expect(errorCode(await app.gql(Disconnect, { id: alice.id }, { token: eve.token }))).toBe("NOT_FOUND");
    expect(ok(await app.gql(Disconnect, { id: alice.id }, { token: ada.token })).disconnectAccount).toEqual({ id: alice.id, status: "DISCONNECTED" });
    const row = await app.database.prisma.connectedAccount.findUniqueOrThrow({ where: { id: alice.id } });
    expect(row).toMatchObject({ accessTokenEncrypted: "", refreshTokenEncrypted: null });
    expect(github.revocations).toHaveLength(1);
    const detail = ok(await app.gql(Detail, { id: ada.deploymentId, search: "alice" }, { token: ada.token })).deployment!.connections.nodes[0];
    expect(detail.recentEvents.map((e) => e.type)).toEqual(["switchyard.connection_deleted", "switchyard.connection_created"]);
    // Again: nothing more happens.
    ok(await app.gql(Disconnect, { id: alice.id }, { token: ada.token }));
    expect(github.revocations).toHaveLength(1);
  });
});
