import { mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createCheckpointJob } from "../../src/db/checkpointJob.ts";
import { openDatabase, PGDATA_TEMPLATE, PGLITE_SETTINGS } from "../../src/db/database.ts";
import { sqlOverPGlite } from "../../src/db/pgliteSql.ts";
import { GuardedNodeFS, type StorageFailure } from "../../src/db/storageGuard.ts";
import { createLogger } from "../../src/log.ts";
import { until } from "../helpers/live.ts";
import { requireBuild } from "../helpers/serviceProcess.ts";
import { scaled } from "../helpers/timing.ts";

/**
 * The embedded database on disk, as the service opens it (the guarded file system, PGLITE_SETTINGS):
 * a commit returns once its WAL is on the disk, not only in the page cache, and its WAL stays
 * bounded although single-user PostgreSQL has no checkpointer (src/db/checkpointJob.ts). Every
 * flush is seen by the file it reached (/proc/self/fd), so "flushed" means that file's fdatasync ran.
 */
let dataDir: string;
let pglite: PGlite;
const failures: StorageFailure[] = [];
/** The files flushed, in order (paths inside the data folder). */
const flushed: string[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "sy-durable-"));
  const pgdata = join(dataDir, "pgdata");
  const flush = (fd: number) => {
    flushed.push(readlinkSync(`/proc/self/fd/${fd}`).replace(`${pgdata}/`, ""));
  };
  pglite = new PGlite({
    fs: new GuardedNodeFS(pgdata, { onFailure: (failure) => failures.push(failure), flush }),
    startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS],
  });
  await pglite.waitReady;
  await pglite.exec("create table event (id serial primary key, payload text not null)");
}, scaled(120_000));

afterAll(async () => {
  await pglite?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const setting = async (name: string) => (await pglite.query<{ value: string }>("select current_setting($1) as value", [name])).rows[0].value;

describe("the embedded database on disk", () => {
  test("fsync is on, and a commit has flushed the WAL file it was written to before it returns", async () => {
    expect(await setting("fsync")).toBe("on");
    flushed.length = 0;
    await pglite.query("insert into event (payload) values ($1)", ["one"]);
    const [{ file }] = (await pglite.query<{ file: string }>("select pg_walfile_name(pg_current_wal_lsn()) as file")).rows;
    expect(flushed).toContain(`pg_wal/${file}`);
    // Nothing committed, nothing flushed: a read only reads.
    flushed.length = 0;
    await pglite.query("select count(*) from event");
    expect(flushed).toEqual([]);
    expect(failures).toEqual([]);
  });

  test(
    "the checkpoint job checkpoints once max_wal_size's share of WAL is written, flushing the data files; the WAL a crash would replay stays under it",
    async () => {
      const sql = sqlOverPGlite(pglite);
      const job = createCheckpointJob({ sql, logger: createLogger("silent"), intervalMs: 60_000 });
      const lastCheckpoint = async () => (await pglite.query<{ redo: string }>("select redo_lsn::text as redo from pg_control_checkpoint()")).rows[0].redo;
      const walFiles = () => readdirSync(join(dataDir, "pgdata", "pg_wal")).filter((name) => /^[0-9A-F]{24}$/.test(name)).length;
      // 128 MB ÷ (1 + 0.9): 67 MB (PGLITE_SETTINGS, checkpointJob.ts).
      const dueBytes = (128 * 1024 * 1024) / 1.9;

      const before = await lastCheckpoint();
      const quiet = await job.runOnce();
      expect(quiet.checkpointed).toBe(false);
      expect(await lastCheckpoint()).toBe(before);

      /** Writes 1.2 times the share of WAL (~1.1 KB a row), then runs a pass. */
      const writeThenPass = async () => {
        const from = (await pglite.query<{ at: string }>("select pg_current_wal_lsn()::text as at")).rows[0].at;
        let written = 0;
        while (written < dueBytes * 1.2) {
          await pglite.query("insert into event (payload) select repeat('x', 1000) from generate_series(1, 10000)");
          written = Number((await pglite.query<{ n: string }>("select pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint as n", [from])).rows[0].n);
        }
        return job.runOnce();
      };

      flushed.length = 0;
      const due = await writeThenPass();
      expect(due.checkpointed).toBe(true);
      expect(due.walBytes).toBeGreaterThanOrEqual(dueBytes);
      expect(await lastCheckpoint()).not.toBe(before);
      // The table's own file was written out and flushed by the checkpoint.
      const [{ path }] = (await pglite.query<{ path: string }>("select pg_relation_filepath('event') as path")).rows;
      expect(flushed).toContain(path);
      // What a crash now would replay is what came after the checkpoint began.
      expect((await job.runOnce()).checkpointed).toBe(false);
      // Three times the share written in all; the WAL kept stays within max_wal_size (16 MB segments).
      expect((await writeThenPass()).checkpointed).toBe(true);
      expect((await writeThenPass()).checkpointed).toBe(true);
      expect(walFiles()).toBeLessThanOrEqual(128 / 16);
      expect(failures).toEqual([]);
    },
    scaled(120_000),
  );

  test("a new data folder, copied from the build's template, is flushed to the disk after the copy", async () => {
    requireBuild();
    const newDataDir = mkdtempSync(join(tmpdir(), "sy-durable-new-"));
    const logged: { msg: string; files?: number }[] = [];
    const database = await openDatabase({ kind: "pglite", dataDir: newDataDir }, createLogger("debug", { write: (line: string) => logged.push(JSON.parse(line)) }));
    try {
      const flushedCopy = () => logged.find((entry) => entry.msg === "the new embedded database's files are flushed to the disk");
      await until(() => flushedCopy() !== undefined, "the copy's flush logged", scaled(30_000));
      // Every file and folder of the template, the folder itself and the one holding it.
      const templateEntries = readdirSync(PGDATA_TEMPLATE, { recursive: true }).length;
      expect(flushedCopy()!.files).toBeGreaterThanOrEqual(templateEntries + 2);
    } finally {
      await database.close();
      rmSync(newDataDir, { recursive: true, force: true });
    }
  }, scaled(120_000));
});
