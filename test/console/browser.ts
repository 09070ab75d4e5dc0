import { mkdirSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";

/**
 * Debian's Chromium driven by playwright-core (`npx playwright install` cannot download here).
 * `.ci/run` and developers install it with `apt-get install -y chromium`.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--no-first-run",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

const docs = resolve(fileURLToPath(new URL("../../docs/console", import.meta.url)));

/**
 * Screenshots of each page. They go to docs/console/ (committed, linked from the README) when
 * CONSOLE_SCREENSHOTS=1, else to a temporary folder: a normal test run changes no tracked file.
 */
export function screenshotDir(): string {
  const dir = process.env.CONSOLE_SCREENSHOTS === "1" ? docs : join(tmpdir(), "switchyard-console-screenshots");
  mkdirSync(dir, { recursive: true });
  return dir;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  // Wait for fonts and the last render; animations (the spinner) are frozen for stable pictures.
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: join(screenshotDir(), `${name}.png`), fullPage: true, animations: "disabled" });
}

/** After a failed test, a picture of what the browser showed (in the screenshot folder). */
export async function screenshotIfFailed(task: { name: string; result?: { state?: string } }, page: Page | undefined, prefix = "failed"): Promise<void> {
  if (task.result?.state === "fail" && page) await screenshot(page, `${prefix}-${task.name.replace(/\W+/g, "-").slice(0, 60)}`);
}

export interface ReceivedRequest {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** The operator's server: records every forwarded request and answers 200. */
export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Resolves with the first request (already received or still to come) that matches. */
  next(predicate: (request: ReceivedRequest) => boolean): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiting: { predicate: (r: ReceivedRequest) => boolean; resolve(r: ReceivedRequest): void }[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const request = { method: req.method ?? "", headers: req.headers, body };
      requests.push(request);
      for (const waiter of [...waiting]) {
        if (waiter.predicate(request)) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve(request);
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/switchyard`,
    requests,
    next: (predicate) => {
      const found = requests.find(predicate);
      return found ? Promise.resolve(found) : new Promise((resolveRequest) => waiting.push({ predicate, resolve: resolveRequest }));
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((done) => server.close(() => done()));
    },
  };
}
