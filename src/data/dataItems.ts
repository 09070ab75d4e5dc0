import * as z from "zod";
import { usableApiKeySql } from "../auth/apiKeys.ts";
import type { Db } from "../db/database.ts";
import type { Sql } from "../db/sql.ts";
import { notFound, parseInput } from "../errors.ts";
import { displayName } from "../organizations/names.ts";

export interface DataItemRow {
  id: number;
  name: string;
  description: string;
}

export interface DataPage {
  items: DataItemRow[];
  total: number;
}

export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 10;
const MAX_POSITION = 2_147_483_647;

/**
 * One page and the total in a single statement. The page is the range (offset, offset + limit] of
 * the items' dense `position`, so a deep page costs what the first one does; the total is the
 * counter kept on the deployment row, so no count(*) runs. Undefined when the deployment is gone.
 */
export async function listDataItems(sql: Sql, deploymentId: string, offset: number, limit: number): Promise<DataPage | undefined> {
  const from = Math.min(offset, MAX_POSITION);
  const to = Math.min(offset + limit, MAX_POSITION);
  const rows = await sql.query<{ total: number; id: number | null; name: string; description: string }>(
    `select d.data_item_count as total, i.id, i.name, i.description
       from deployment d
       left join lateral (
         select id, name, description, position from data_item
          where deployment_id = d.id and position > $2 and position <= $3
       ) i on true
      where d.id = $1
      order by i.position`,
    [deploymentId, from, to],
    "data_item_page",
  );
  if (rows.length === 0) return undefined;
  const items = rows[0].id === null ? [] : rows.map(({ id, name, description }) => ({ id: id as number, name, description }));
  return { items, total: rows[0].total };
}

export interface KeyedDataPage {
  apiKeyId: string;
  deploymentId: string;
  total: number;
  /** The page as a JSON array, built by PostgreSQL: `[{"id": 1, "name": "…", "description": "…"}, …]`. */
  itemsJson: string;
}

/**
 * The page of the deployment whose usable API key has the hash `keyHash`, in one statement: the
 * key check, the counter and the page. Undefined when no usable key has that hash. This is GET
 * /api/data's hot path: one round trip, like a bare page query, and PostgreSQL writes the page's
 * JSON itself (as PostgREST does), so Node neither parses rows nor serializes them again
 * (docs/benchmarks.md). jsonb orders keys by length, which is exactly id, name, description.
 */
export async function listDataItemsByApiKey(sql: Sql, keyHash: string, offset: number, limit: number): Promise<KeyedDataPage | undefined> {
  const from = Math.min(offset, MAX_POSITION);
  const to = Math.min(offset + limit, MAX_POSITION);
  const rows = await sql.query<{ key_id: string; deployment_id: string; total: number; items: string }>(
    `select k.id as key_id, k.deployment_id,
            (select data_item_count from deployment where id = k.deployment_id) as total,
            (select coalesce(jsonb_agg(jsonb_build_object('id', id, 'name', name, 'description', description) order by position), '[]')::text
               from data_item
              where deployment_id = k.deployment_id and position > $2 and position <= $3) as items
       from api_key k
      where k.hash = $1 and ${usableApiKeySql("k")}`,
    [keyHash, from, to],
    // Prepared once per connection: planning costs PostgreSQL more than running this.
    "data_item_page_json_by_api_key",
  );
  const row = rows[0];
  if (!row) return undefined;
  return { apiKeyId: row.key_id, deploymentId: row.deployment_id, total: row.total, itemsJson: row.items };
}

const itemInput = z.object({
  name: displayName(200),
  description: z.string().max(5000, "must be at most 5000 characters"),
});

/** Appends an item. Taking the deployment's row lock first keeps positions dense and in id order. */
export async function createDataItem(db: Db, deploymentId: string, input: { name: string; description: string }) {
  const values = parseInput(itemInput, input);
  return db.$transaction(async (tx) => {
    const { dataItemCount } = await tx.deployment.update({
      where: { id: deploymentId },
      data: { dataItemCount: { increment: 1 } },
      select: { dataItemCount: true },
    });
    return tx.dataItem.create({ data: { deploymentId, position: dataItemCount, ...values } });
  });
}

export async function updateDataItem(db: Db, deploymentId: string, id: number, input: { name?: string | null; description?: string | null }) {
  const values = parseInput(itemInput.partial(), {
    name: input.name ?? undefined,
    description: input.description ?? undefined,
  });
  const { count } = await db.dataItem.updateMany({ where: { id, deploymentId }, data: values });
  if (count === 0) throw notFound("Data item");
  return db.dataItem.findUniqueOrThrow({ where: { id } });
}

/** Removes an item and closes the gap it leaves, so positions stay 1..count. */
export async function deleteDataItem(db: Db, deploymentId: string, id: number) {
  return db.$transaction(async (tx) => {
    await tx.deployment.update({ where: { id: deploymentId }, data: { dataItemCount: { decrement: 1 } } });
    const item = await tx.dataItem.findFirst({ where: { id, deploymentId } });
    if (!item) throw notFound("Data item");
    await tx.dataItem.delete({ where: { id } });
    await tx.dataItem.updateMany({
      where: { deploymentId, position: { gt: item.position } },
      data: { position: { decrement: 1 } },
    });
    return item;
  });
}

