import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, test } from "vitest";

/**
 * Every statement that moves a delivery row lives in src/delivery/queue/ (its index.ts holds the
 * state table). A newcomer who writes `update delivery …` anywhere else — or reaches for Prisma's
 * `delivery.update…` — is stopped here and pointed at the queue's operations instead.
 */
const root = join(import.meta.dirname, "../..");
const src = join(root, "src");
const queue = join(src, "delivery", "queue");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sourceFiles(path);
    return /\.(ts|tsx|sql)$/.test(entry.name) ? [path] : [];
  });
}

// `update delivery` in any case and spacing (quoted or not), but not `update delivery_attempt`;
// and Prisma's delivery.update / updateMany / upsert.
const WRITES_DELIVERY = /\bupdate\s+(?:"?public"?\s*\.\s*)?"?delivery"?(?![\w])|\.delivery\s*\.\s*(?:update\w*|upsert)\s*\(/i;

test("no statement outside src/delivery/queue/ updates a delivery row", () => {
  const offenders = sourceFiles(src)
    .filter((file) => !file.startsWith(queue + "/"))
    .flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((line, index) => ({ line, index }))
        .filter(({ line }) => WRITES_DELIVERY.test(line))
        .map(({ line, index }) => `${relative(root, file)}:${index + 1}: ${line.trim()}`),
    );
  expect(offenders).toEqual([]);
});

test("the check itself catches every spelling, and leaves delivery_attempt alone", () => {
  for (const line of ["update delivery set", "UPDATE   delivery\tSET", `Update "delivery" set`, "update public.delivery set", "`update delivery", "db.delivery.updateMany({"]) {
    expect(WRITES_DELIVERY.test(line), line).toBe(true);
  }
  for (const line of ["update delivery_attempt set", "insert into delivery (id)", "select * from delivery", "updated_at on delivery"]) {
    expect(WRITES_DELIVERY.test(line), line).toBe(false);
  }
});
