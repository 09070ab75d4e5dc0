import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { graphqlClient, type TestApp } from "./testApp.ts";

/**
 * The real service as its own process (`node --import tsx src/main.ts`), for stories that need to
 * kill it: same port and data on every restart, output kept for the failure message.
 */
export interface ServiceProcess {
  url: string;
  /** A TestApp-shaped client (url + gql) so helpers like createOperator and connectAccount work against it. */
  client: TestApp;
  start(): Promise<void>;
  /** SIGKILL: no shutdown code runs. */
  kill9(): Promise<void>;
  /** SIGTERM and wait: the graceful path. Resolves with the exit code (or the signal's name). */
  stop(): Promise<number | string>;
  output(): string;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function serviceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let exited: Promise<number | string> = Promise.resolve(0);
  let log = "";

  const service: ServiceProcess = {
    url,
    client: { url, gql: graphqlClient(url) } as unknown as TestApp,
    async start() {
      child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
        cwd: new URL("../..", import.meta.url).pathname,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: url, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const current = child;
      current.stdout!.on("data", (chunk: Buffer) => (log += chunk.toString()));
      current.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
      exited = new Promise((resolve) => current.once("exit", (code, signal) => resolve(code ?? signal ?? -1)));
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (current.exitCode !== null) throw new Error(`the service exited with ${current.exitCode}:\n${log.slice(-3000)}`);
        try {
          if ((await fetch(`${url}/readyz`)).status === 200) return;
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline) throw new Error(`the service did not become ready:\n${log.slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async kill9() {
      child?.kill("SIGKILL");
      await exited;
    },
    async stop() {
      child?.kill("SIGTERM");
      return exited;
    },
    output: () => log,
  };
  return service;
}
