import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { GuardedNodeFS, type StorageFailure } from "../../src/db/storageGuard.ts";

// The guard over PGlite's files, on a stand-in for Emscripten's NODEFS: every operation, not only
// writes, reports a refusal of the disk before PostgreSQL sees it (and PANICs holding the thread).
// The whole path — a write refused, the process ending with 74, a restart recovering — is
// test/process/faults.test.ts.
class ErrnoError extends Error {
  constructor(readonly errno: number) {
    super(`errno ${errno}`);
  }
}

function guardedModule(failing: Record<string, number>, failWhen?: string) {
  const failures: StorageFailure[] = [];
  const op = (name: string) => (..._args: unknown[]) => {
    if (failing[name] !== undefined) throw new ErrnoError(failing[name]);
    return 0;
  };
  const module = {
    FS: { ErrnoError },
    NODEFS: {
      realPath: (node: { path: string }) => node.path,
      // As Emscripten's: a Node error's code becomes its errno.
      tryFSOperation: (operation: () => unknown) => {
        try {
          return operation();
        } catch (error) {
          throw new ErrnoError({ EIO: 29, ENOSPC: 51 }[(error as NodeJS.ErrnoException).code!]!);
        }
      },
      node_ops: { getattr: op("getattr"), mknod: op("mknod"), setattr: op("setattr"), rename: op("rename"), lookup: op("lookup") },
      stream_ops: { open: op("open"), read: op("read"), write: op("write"), llseek: op("llseek") },
    },
  };
  const flushed: number[] = [];
  const flush = (fd: number) => {
    if (failing.flush !== undefined) throw Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
    flushed.push(fd);
  };
  const fs = new GuardedNodeFS(mkdtempSync(join(tmpdir(), "sy-guard-")), { onFailure: (failure) => failures.push(failure), flush, testOnlyFailWritesWhen: failWhen });
  (fs as unknown as { guard(module: unknown): void }).guard(module);
  return { failures, flushed, node: module.NODEFS.node_ops, stream: module.NODEFS.stream_ops as typeof module.NODEFS.stream_ops & { fsync(stream: unknown): number } };
}

const file = { path: "/pgdata/pg_wal/000000010000000000000002" };

describe("the embedded database's storage guard", () => {
  test.each([
    ["mknod", "node", 51, "ENOSPC"],
    ["setattr", "node", 51, "ENOSPC"],
    ["rename", "node", 69, "EROFS"],
    ["read", "stream", 29, "EIO"],
    ["write", "stream", 19, "EDQUOT"],
  ] as const)("%s refused with %s: reported, and the error still reaches PostgreSQL", (name, kind, errno, code) => {
    const guarded = guardedModule({ [name]: errno });
    const ops = kind === "node" ? guarded.node : guarded.stream;
    const target = kind === "node" ? file : { node: file };
    expect(() => (ops as Record<string, (target: unknown) => unknown>)[name](target)).toThrow(ErrnoError);
    expect(guarded.failures).toEqual([{ code, path: file.path, message: `the disk refused ${name} (${code})` }]);
  });

  test("a flush reaches the file system (NODEFS has none), and one the disk refuses is reported", () => {
    const guarded = guardedModule({});
    expect(guarded.stream.fsync({ node: file, nfd: 7 })).toBe(0);
    expect(guarded.flushed).toEqual([7]);
    const refusing = guardedModule({ flush: 29 });
    expect(() => refusing.stream.fsync({ node: file, nfd: 7 })).toThrow(ErrnoError);
    expect(refusing.failures).toEqual([{ code: "EIO", path: file.path, message: "the disk refused fsync (EIO)" }]);
  });

  test("an ordinary miss (ENOENT from lookup) is not a storage failure", () => {
    const guarded = guardedModule({ lookup: 44 });
    expect(() => guarded.node.lookup(file)).toThrow(ErrnoError);
    expect(guarded.failures).toEqual([]);
  });

  test("the test-only switch fails writes, or the operations its file names", () => {
    const flag = join(mkdtempSync(join(tmpdir(), "sy-guard-")), "full");
    const guarded = guardedModule({}, flag);
    expect(guarded.stream.write({ node: file })).toBe(0);
    writeFileSync(flag, "");
    expect(() => guarded.stream.write({ node: file })).toThrow(ErrnoError);
    expect(guarded.node.mknod(file)).toBe(0);
    writeFileSync(flag, "mknod\n");
    expect(() => guarded.node.mknod(file)).toThrow(ErrnoError);
    expect(guarded.stream.write({ node: file })).toBe(0);
    expect(guarded.failures.map((failure) => failure.message)).toEqual([
      "no space left on device (injected into write for a test)",
      "no space left on device (injected into mknod for a test)",
    ]);
  });
});
