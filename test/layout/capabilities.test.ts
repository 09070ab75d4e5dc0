import { expect, test } from "vitest";
import { capabilityOf, imports, sourceFiles } from "./sourceFiles.ts";

/**
 * The import graph between capability folders (src/<folder>/): data flows one way, from the
 * surfaces (rest/, graphql/) through the capabilities to the database, and a folder never reaches
 * back up. Type-only imports count everywhere, cycles included: they are erased at build, but a
 * type names what a folder knows about, and a cycle of knowledge is a cycle of design (a late-bound
 * closure hides a run-time one the same way).
 */
const FORBIDDEN: [from: string, to: string[], why: string][] = [
  ["delivery", ["forwarding", "graphql", "rest"], "the delivery queue and worker own their rows; forwarding calls them, never the reverse"],
  ["rest", ["graphql"], "REST routes and GraphQL resolvers share capabilities, not each other"],
  ["connectors", ["forwarding", "delivery", "rest", "graphql", "oauth", "credentials", "connections", "polling"], "a connector is a declaration the core reads"],
  ["oauth", ["db", "connections", "credentials", "events", "forwarding", "rest", "graphql", "polling", "subscriptions"], "oauth/ is the protocol only: URLs, state and PKCE, code exchange, a refresh's outcome — no database, no events"],
  ["connections", ["polling", "forwarding", "subscriptions", "delivery", "connect", "rest", "graphql"], "connections/ owns the connected account; the poller, inbound events, subscriptions and the connect flow call its store, and what it needs of them is passed in"],
  ["organizations", ["auth"], "auth/ builds on organizations/ (a user's memberships); organizations names what it needs of auth/ itself"],
  ["events", ["forwarding", "delivery", "rest", "graphql"], "pub/sub only carries messages"],
  ["db", ["auth", "forwarding", "delivery", "rest", "graphql"], "the database layer knows no capability"],
];

const files = sourceFiles();
const edges = imports(files);

test("nothing imports a services bag (src/services.ts is gone)", () => {
  expect(files.map((f) => f.path)).not.toContain("services.ts");
  expect(edges.filter((edge) => edge.to === "services.ts").map((edge) => `src/${edge.from}`)).toEqual([]);
});

test.each(FORBIDDEN)("%s/ never imports %j (%s)", (from, forbidden) => {
  const crossing = edges
    .filter((edge) => capabilityOf(edge.from) === from && forbidden.includes(capabilityOf(edge.to)))
    .map((edge) => `src/${edge.from} → src/${edge.to}`);
  expect(crossing).toEqual([]);
});

test("only app.ts imports graphql/ from outside it", () => {
  const outside = edges
    .filter((edge) => capabilityOf(edge.to) === "graphql" && !["graphql", "app"].includes(capabilityOf(edge.from)))
    .map((edge) => `src/${edge.from} → src/${edge.to}`);
  expect(outside).toEqual([]);
});

test("no import cycle between capability folders (type-only imports counted)", () => {
  const graph = new Map<string, Set<string>>();
  for (const edge of edges) {
    const from = capabilityOf(edge.from);
    const to = capabilityOf(edge.to);
    if (from === to) continue;
    if (!graph.has(from)) graph.set(from, new Set());
    graph.get(from)!.add(to);
  }
  const cycles: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (node: string, path: string[]) => {
    if (state.get(node) === "done") return;
    if (state.get(node) === "visiting") {
      cycles.push([...path.slice(path.indexOf(node)), node].join(" → "));
      return;
    }
    state.set(node, "visiting");
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) visit(node, []);
  expect(cycles, "which files make each edge: node test/layout/… or grep the folder's imports").toEqual([]);
});

test("app.ts only composes: at most 350 lines (the front door, request metrics and workers live in http/ and background.ts)", () => {
  const app = files.find((file) => file.path === "app.ts")!;
  const lines = app.text.split("\n").length - (app.text.endsWith("\n") ? 1 : 0);
  expect(lines, "move what is not wiring out of src/app.ts").toBeLessThanOrEqual(350);
});
