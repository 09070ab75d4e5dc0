import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, test } from "vitest";

/**
 * Every statement that writes a connected_account row lives in src/connections/store/ (its index.ts
 * holds the state table). A newcomer who writes `update connected_account …` or
 * `insert into connected_account …` anywhere else — or reaches for Prisma's
 * `connectedAccount.update…/create…/upsert/delete…` — is stopped here and pointed at the store's
 * statements instead.
 */
const root = join(import.meta.dirname, "../..");
const src = join(root, "src");
const store = join(src, "connections", "store");


function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sourceFiles(path);
    return /\.(ts|tsx|sql)$/.test(entry.name) ? [path] : [];
  });
}

// SQL `update connected_account` / `insert into connected_account` / `delete from connected_account`
// in any case and spacing (quoted or schema-qualified), and Prisma's writes on the model.
const TABLE = String.raw`(?:"?public"?\s*\.\s*)?"?connected_account"?(?![\w])`;
const WRITES_CONNECTED_ACCOUNT = new RegExp(
  String.raw`\bupdate\s+${TABLE}|\binsert\s+into\s+${TABLE}|\bdelete\s+from\s+${TABLE}|\.connectedAccount\s*\.\s*(?:update\w*|create\w*|upsert|delete\w*)\s*\(`,
  "i",
);

test("no statement outside src/connections/store/ writes a connected_account row", () => {
  const offenders = sourceFiles(src)
    .filter((file) => !file.startsWith(store + "/"))
    .flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((line, index) => ({ line, index }))
        .filter(({ line }) => WRITES_CONNECTED_ACCOUNT.test(line))
        .map(({ line, index }) => `${relative(root, file)}:${index + 1}: ${line.trim()}`),
    );
  expect(offenders).toEqual([]);
});

test("the check itself catches every spelling, and leaves reads and other tables alone", () => {
  for (const line of [
    "update connected_account set",
    "UPDATE   connected_account\tSET",
    `Update "connected_account" a set`,
    "update public.connected_account set",
    "insert into connected_account (id)",
    "INSERT INTO \"connected_account\"",
    "delete from connected_account where",
    "db.connectedAccount.updateMany({",
    "tx.connectedAccount.upsert({",
    "deps.db.connectedAccount.create({",
    "prisma.connectedAccount.deleteMany({",
  ]) {
    expect(WRITES_CONNECTED_ACCOUNT.test(line), line).toBe(true);
  }
  for (const line of ["select * from connected_account", "update connected_account_x set", "db.connectedAccount.findUnique({", "join connected_account a on", "update delivery set"]) {
    expect(WRITES_CONNECTED_ACCOUNT.test(line), line).toBe(false);
  }
});

test("src/oauth/ is the protocol only: it reads and writes no table", () => {
  const oauth = join(src, "oauth");
  const touching = sourceFiles(oauth).filter((file) => /\bdeps\.db\b|\bdb\.\w+\.|\bsql\.query\b|\bdb\/database\.ts|\bdb\/sql\.ts/.test(readFileSync(file, "utf8")));
  expect(touching.map((file) => relative(root, file))).toEqual([]);
});
