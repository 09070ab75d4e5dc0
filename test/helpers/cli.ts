import { type Child, spawnNode } from "./childProcess.ts";

export interface CliRun {
  child: Child["process"];
  stdout(): string;
  stderr(): string;
  exited: Promise<number | string>;
}

const started: Child[] = [];

/** `switchyard …` as a developer runs it: the bin, in a child process (stopCli ends it after the test, pass or fail). */
export function switchyard(args: string[], env: Record<string, string> = {}): CliRun {
  const child = spawnNode(["bin/switchyard.js", ...args], { env: { ...process.env, ...env } });
  started.push(child);
  let stdout = "";
  let stderr = "";
  child.process.stdout!.on("data", (chunk) => (stdout += chunk));
  child.process.stderr!.on("data", (chunk) => (stderr += chunk));
  return { child: child.process, stdout: () => stdout, stderr: () => stderr, exited: child.exited };
}

/** Stops every CLI process the test started (for afterEach). */
export async function stopCli(): Promise<void> {
  await Promise.all(started.splice(0).map((child) => child.stop()));
}
