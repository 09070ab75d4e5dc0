import { existsSync } from "node:fs";
import { NodeFS } from "@electric-sql/pglite/nodefs";

/**
 * The embedded database's files (PGlite's NodeFS), with one addition: a write the disk refuses for
 * good — no space, quota, read-only, I/O error — is reported to `onFailure` synchronously, inside the
 * failing write, before PostgreSQL sees it.
 *
 * Why inside the write: when a WAL write fails, PostgreSQL PANICs, and under PGlite a PANIC does
 * not end the process — the WebAssembly spins on one core, holding the JavaScript thread, so no
 * timer, request or SIGTERM handler ever runs again (measured: a 60 MB tmpfs filled up, the process
 * answered nothing for 60 s and kept the data folder locked). Nothing on the JavaScript side can act
 * after that point; this is the last place that can. `onFailure` must end the process (main.ts
 * exits non-zero so a supervisor restarts it; PostgreSQL's WAL recovery replays what was committed).
 */
export type StorageFailure = { code: string; path: string; message: string };

// Emscripten's errno numbers (the ones PGlite's NODEFS throws), by Node's codes.
const FATAL_ERRNOS: Record<string, number> = { ENOSPC: 51, EDQUOT: 19, EROFS: 69, EIO: 29, EFBIG: 22 };

interface EmscriptenModule {
  FS: { ErrnoError: new (errno: number) => Error & { errno: number } };
  NODEFS: {
    realPath(node: unknown): string;
    stream_ops: { write(stream: { node: unknown }, ...rest: unknown[]): number };
  };
}

export class GuardedNodeFS extends NodeFS {
  constructor(
    dataDir: string,
    private readonly onFailure: (failure: StorageFailure) => void,
    /** TEST ONLY (SWITCHYARD_TEST_ONLY_FAIL_DISK_WRITES_WHEN): while this file exists, every write fails with ENOSPC. */
    private readonly testOnlyFailWritesWhen?: string,
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
    const ops = module.NODEFS.stream_ops;
    const write = ops.write;
    const onFailure = this.onFailure;
    const failWhen = this.testOnlyFailWritesWhen;
    const errnoNames = Object.fromEntries(Object.entries(FATAL_ERRNOS).map(([name, errno]) => [errno, name]));
    ops.write = function guardedWrite(this: unknown, stream, ...rest) {
      if (failWhen && existsSync(failWhen)) {
        onFailure({ code: "ENOSPC", path: module.NODEFS.realPath(stream.node), message: "no space left on device (injected for a test)" });
        throw new module.FS.ErrnoError(FATAL_ERRNOS.ENOSPC);
      }
      try {
        return write.call(this, stream, ...rest);
      } catch (error) {
        const name = errnoNames[(error as { errno?: number }).errno ?? -1];
        if (name) onFailure({ code: name, path: module.NODEFS.realPath(stream.node), message: `the disk refused a write (${name})` });
        throw error;
      }
    };
  }
}
