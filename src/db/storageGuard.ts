import { existsSync, fdatasyncSync, readFileSync } from "node:fs";
import { NodeFS } from "@electric-sql/pglite/nodefs";

/**
 * The embedded database's files (PGlite's NodeFS), with two additions:
 *
 * - PostgreSQL's flushes reach the disk. Emscripten hands a file's fsync to its stream's `fsync`
 *   operation, which NODEFS does not have: every flush was a no-op, so a commit lived in the page
 *   cache until Linux wrote it out (up to 30 s later) and a power cut could lose events answered
 *   2xx. Here it is `fdatasync` (what PostgreSQL's default `wal_sync_method` on Linux calls), and
 *   PGLITE_SETTINGS turn PostgreSQL's fsync back on (database.ts).
 * - A file operation the disk refuses for good — no space, quota, read-only, I/O error — is
 *   reported to `onFailure` synchronously, inside the failing operation, before PostgreSQL sees it.
 *   Every operation is guarded, not only writes: creating a WAL segment (mknod), extending a file
 *   (setattr), renaming one into place, reading a page back, a flush (EIO) fail the same way on a
 *   sick disk, and PostgreSQL PANICs on those too.
 *
 * Why inside the write: when a WAL write fails, PostgreSQL PANICs, and under PGlite a PANIC does
 * not end the process — the WebAssembly spins on one core, holding the JavaScript thread, so no
 * timer, request or SIGTERM handler ever runs again (measured: a 60 MB tmpfs filled up, the process
 * answered nothing for 60 s and kept the data folder locked). Nothing on the JavaScript side can act
 * after that point; this is the last place that can. `onFailure` must end the process (main.ts
 * exits non-zero so a supervisor restarts it; PostgreSQL's WAL recovery replays what was committed).
 */
export type StorageFailure = { code: string; path: string; message: string };

export interface StorageGuardOptions {
  /** Must end the process (above). */
  onFailure: (failure: StorageFailure) => void;
  /** Flushes an open file (a Node file descriptor) to the disk; tests count the calls. */
  flush?: (fd: number) => void;
  /** TEST ONLY (SWITCHYARD_TEST_ONLY_FAIL_DISK_WRITES_WHEN): while this file exists, every write fails with ENOSPC. */
  testOnlyFailWritesWhen?: string;
}

// Emscripten's errno numbers (the ones PGlite's NODEFS throws), by Node's codes.
const FATAL_ERRNOS: Record<string, number> = { ENOSPC: 51, EDQUOT: 19, EROFS: 69, EIO: 29, EFBIG: 22 };

type Operations = Record<string, (...args: unknown[]) => unknown>;

interface EmscriptenModule {
  FS: { ErrnoError: new (errno: number) => Error & { errno: number } };
  NODEFS: {
    realPath(node: unknown): string;
    /** Runs a Node file operation, turning a Node error into Emscripten's (ErrnoError). */
    tryFSOperation<T>(operation: () => T): T;
    /** Operations on a file or folder: their first argument is the node. */
    node_ops: Operations;
    /** Operations on an open file: their first argument is the stream (its `node`). */
    stream_ops: Operations;
  };
}

export class GuardedNodeFS extends NodeFS {
  constructor(
    dataDir: string,
    private readonly options: StorageGuardOptions,
  ) {
    super(dataDir);
  }

  override async init(...args: Parameters<NodeFS["init"]>) {
    const result = await super.init(...args);
    const opts = result.emscriptenOpts as { preRun?: ((module: EmscriptenModule) => void)[] };
    opts.preRun = [...(opts.preRun ?? []), (module) => this.guard(module)];
    return result;
  }

  private guard(module: EmscriptenModule) {
    const { NODEFS, FS } = module;
    const { onFailure, flush = fdatasyncSync, testOnlyFailWritesWhen: failWhen } = this.options;
    // Added before the guard below wraps every operation, so a refused flush is reported like a refused write.
    NODEFS.stream_ops.fsync = (stream) =>
      NODEFS.tryFSOperation(() => {
        flush((stream as { nfd: number }).nfd);
        return 0;
      });
    const errnoNames = Object.fromEntries(Object.entries(FATAL_ERRNOS).map(([name, errno]) => [errno, name]));
    const path = (target: unknown) => {
      try {
        return NODEFS.realPath((target as { node?: unknown }).node ?? target);
      } catch {
        return "(unknown)";
      }
    };
    const wrap = (ops: Operations, name: string) => {
      const original = ops[name];
      ops[name] = function guarded(this: unknown, ...args: unknown[]) {
        if (failWhen && injected(failWhen, name)) {
          onFailure({ code: "ENOSPC", path: path(args[0]), message: `no space left on device (injected into ${name} for a test)` });
          throw new FS.ErrnoError(FATAL_ERRNOS.ENOSPC);
        }
        try {
          return original.apply(this, args);
        } catch (error) {
          const code = errnoNames[(error as { errno?: number }).errno ?? -1];
          if (code) onFailure({ code, path: path(args[0]), message: `the disk refused ${name} (${code})` });
          throw error;
        }
      };
    };
    for (const ops of [NODEFS.node_ops, NODEFS.stream_ops]) {
      for (const name of Object.keys(ops)) if (typeof ops[name] === "function") wrap(ops, name);
    }
  }
}

/**
 * TEST ONLY: whether the injected failure applies to this operation. The file's presence fails
 * writes; a file naming operations (one per line: "mknod", "read", …) fails those instead.
 */
function injected(file: string, operation: string): boolean {
  if (!existsSync(file)) return false;
  const names = readFileSync(file, "utf8").split(/\s+/).filter(Boolean);
  return names.length === 0 ? operation === "write" : names.includes(operation);
}
