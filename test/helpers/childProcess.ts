import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process";
import { fileURLToPath } from "node:url";
import { scaled } from "./timing.ts";

/**
 * Every child process a test starts goes through here, so that none outlives its test, pass or
 * fail: each runs in its own process group (its own children die with it), every live one is
 * killed when the test process exits, and each stops itself if the test process dies without
 * exiting (test/helpers/exitWithParent.mjs).
 */
export interface Child {
  process: ChildProcess;
  /** stdout and stderr so far, interleaved as they arrived. */
  output(): string;
  /** Resolves with the exit code, or the signal's name. */
  exited: Promise<number | string>;
  /** SIGTERM to the group, SIGKILL after `graceMs` (scaled to the machine's load); resolves on exit. */
  stop(graceMs?: number): Promise<number | string>;
  /** SIGKILL to the group: nothing of it runs any more. */
  kill(): Promise<number | string>;
}

const EXIT_WITH_PARENT = fileURLToPath(new URL("./exitWithParent.mjs", import.meta.url));
const live = new Set<ChildProcess>();

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

process.once("exit", () => {
  for (const child of live) signalGroup(child, "SIGKILL");
});

/** `node [--import exitWithParent] <args>` as a test's child. */
export function spawnNode(args: string[], options: Omit<SpawnOptions, "stdio" | "detached"> = {}): Child {
  const child = spawn(process.execPath, ["--import", EXIT_WITH_PARENT, ...args], { ...options, stdio: ["ignore", "pipe", "pipe"], detached: true });
  live.add(child);
  let log = "";
  child.stdout!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => {
      live.delete(child);
      resolve(code ?? signal ?? -1);
    }),
  );
  return {
    process: child,
    output: () => log,
    exited,
    async stop(graceMs = 15_000) {
      signalGroup(child, "SIGTERM");
      const timer = setTimeout(() => signalGroup(child, "SIGKILL"), scaled(graceMs));
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    async kill() {
      signalGroup(child, "SIGKILL");
      return exited;
    },
  };
}
