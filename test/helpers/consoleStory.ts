import { scaled } from "./timing.ts";
import type { Browser, Page } from "playwright-core";
import { buildConsole } from "../../scripts/build-console.ts";
import { launchChromium } from "../console/browser.ts";
import { createOperator, type Operator } from "./operators.ts";
import { startTestApp, type TestApp } from "./testApp.ts";

/** The usual start of a console story: the built console served by an app, Ada signed in, a browser on her side. */
export interface ConsoleStory {
  app: TestApp;
  /** Ada: signed up, with an organization and a key for its development deployment. */
  operator: Operator;
  browser: Browser;
  /** A page signed in as the operator (its own browser context), nothing opened yet. */
  page: Page;
  /** A fresh browser context signed in as `as` (default the operator); the caller closes `page.context()` when done with it. */
  newPage(options?: { as?: Operator; viewport?: Viewport }): Promise<Page>;
  /** Closes the browser, then the app; safe after a failed start. */
  close(): Promise<void>;
}

interface Viewport {
  width: number;
  height: number;
}

export interface ConsoleStoryOptions {
  env?: Record<string, string>;
  /** The app's own options (a worker, a clock…), as startTestApp takes them. */
  app?: Parameters<typeof startTestApp>[1];
  viewport?: Viewport;
  /** Each page's default wait: a failing step names its locator rather than running into the test's timeout. */
  timeoutMs?: number;
}

export async function startConsoleStory(options: ConsoleStoryOptions = {}): Promise<ConsoleStory> {
  const { viewport = { width: 1280, height: 860 }, timeoutMs = 10_000 } = options;
  await buildConsole({ quiet: true });
  const app = await startTestApp(options.env ?? {}, options.app ?? {});
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await app.close();
  };
  try {
    const operator = await createOperator(app, "Ada");
    browser = await launchChromium();
    const started = browser;
    const newPage: ConsoleStory["newPage"] = async ({ as = operator, viewport: size = viewport } = {}) => {
      const context = await started.newContext({ viewport: size });
      await context.addCookies([{ name: "sy_session", value: as.token, url: app.url, httpOnly: true, sameSite: "Lax" }]);
      const page = await context.newPage();
      page.setDefaultTimeout(scaled(timeoutMs));
      return page;
    };
    return { app, operator, browser, page: await newPage(), newPage, close };
  } catch (err) {
    await close();
    throw err;
  }
}
