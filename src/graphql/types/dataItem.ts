import { createDataItem, type DataItemRow, deleteDataItem, listDataItems, updateDataItem } from "../../data/dataItems.ts";
import { parsePageArgs } from "../../data/pageArgs.ts";
import { notFound } from "../../errors.ts";
import { builder } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import { lookUpThenGuard } from "../lookUpThenGuard.ts";

const DataItem = builder.objectRef<DataItemRow>("DataItem").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    description: t.exposeString("description"),
  }),
});

interface Page {
  items: DataItemRow[];
  total: number;
  offset: number;
  limit: number;
}

// A cursor is the item's 0-based index in the listing, opaque to clients.
const cursorAt = (index: number) => Buffer.from(`offset:${index}`).toString("base64url");

const PageInfo = builder
  .objectRef<{ hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null }>("PageInfo")
  .implement({
    fields: (t) => ({
      hasNextPage: t.exposeBoolean("hasNextPage"),
      hasPreviousPage: t.exposeBoolean("hasPreviousPage"),
      startCursor: t.exposeString("startCursor", { nullable: true }),
      endCursor: t.exposeString("endCursor", { nullable: true }),
    }),
  });

const DataItemEdge = builder.objectRef<{ cursor: string; node: DataItemRow }>("DataItemEdge").implement({
  fields: (t) => ({ cursor: t.exposeString("cursor"), node: t.field({ type: DataItem, resolve: (edge) => edge.node }) }),
});

const DataItemConnection = builder.objectRef<Page>("DataItemConnection").implement({
  description: "An offset page of data items, ordered by id, with the same numbers as GET /api/data.",
  fields: (t) => ({
    nodes: t.field({ type: [DataItem], resolve: (page) => page.items }),
    edges: t.field({
      type: [DataItemEdge],
      resolve: (page) => page.items.map((node, i) => ({ cursor: cursorAt(page.offset + i), node })),
    }),
    totalCount: t.exposeInt("total"),
    offset: t.exposeInt("offset"),
    limit: t.exposeInt("limit"),
    pageInfo: t.field({
      type: PageInfo,
      resolve: (page) => ({
        hasNextPage: page.offset + page.items.length < page.total,
        hasPreviousPage: page.offset > 0,
        startCursor: page.items.length ? cursorAt(page.offset) : null,
        endCursor: page.items.length ? cursorAt(page.offset + page.items.length - 1) : null,
      }),
    }),
  }),
});

builder.prismaObjectField("Deployment", "dataItems", (t) =>
  t.field({
    type: DataItemConnection,
    args: { offset: t.arg.int({ required: false, defaultValue: 0 }), limit: t.arg.int({ required: false, defaultValue: 10 }) },
    resolve: async (deployment, args, ctx) => {
      const { offset, limit } = parsePageArgs({ offset: args.offset ?? 0, limit: args.limit ?? 10 });
      const page = await listDataItems(ctx.sql, deployment.id, offset, limit);
      if (!page) throw notFound("Deployment");
      return { ...page, offset, limit };
    },
  }),
);

/** The deployment an item belongs to, if the caller may change it; NOT_FOUND otherwise (never says which). */
async function deploymentOfItem(ctx: GraphQLContext, id: string): Promise<{ deploymentId: string; itemId: number }> {
  const { deploymentId, id: itemId } = await lookUpThenGuard(ctx, "Data item", id, "change data items");
  return { deploymentId, itemId };
}

builder.mutationFields((t) => ({
  createDataItem: t.field({
    type: DataItem,
    args: { deploymentId: t.arg.id(), name: t.arg.string(), description: t.arg.string() },
    authScopes: (_root, args) => ({ deploymentAdmin: String(args.deploymentId) }),
    resolve: (_root, args, ctx) => createDataItem(ctx.db, String(args.deploymentId), args),
  }),
  updateDataItem: t.field({
    type: DataItem,
    args: { id: t.arg.id(), name: t.arg.string({ required: false }), description: t.arg.string({ required: false }) },
    authScopes: { loggedIn: true },
    resolve: async (_root, args, ctx) => {
      const { deploymentId, itemId } = await deploymentOfItem(ctx, String(args.id));
      return updateDataItem(ctx.db, deploymentId, itemId, args);
    },
  }),
  deleteDataItem: t.field({
    type: DataItem,
    description: "Deletes an item and returns it as it was.",
    args: { id: t.arg.id() },
    authScopes: { loggedIn: true },
    resolve: async (_root, args, ctx) => {
      const { deploymentId, itemId } = await deploymentOfItem(ctx, String(args.id));
      return deleteDataItem(ctx.db, deploymentId, itemId);
    },
  }),
}));
