import { readFile, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { AppError } from "../errors.ts";
import { packageRoot } from "../version.ts";
import { html, json, type HttpRequest, type HttpResponse, type Route } from "../http/types.ts";
import type { Db } from "../db/database.ts";

/**
 * The web console: the single-page app built from console/ (scripts/build-console.ts, run by
 * `npm start`) served at /console. Paths with a file extension are files of the build (404 when
 * absent); any other path under /console/ is a page of the app and gets index.html, whose router
 * takes it from there. Hashed assets are cached for a year; index.html is revalidated every time
 * so a new build is picked up at once.
 */

export const CONSOLE_DIST = resolve(packageRoot, "console", "dist");

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

// The console talks only to its own origin (GraphQL over HTTP and graphql-ws); nothing inline.
const securityHeaders = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
};

const notBuilt = html(
  503,
  `<!doctype html><meta charset="utf-8"><title>Console not built</title>
<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;line-height:1.5">
<h1>The console has not been built yet</h1>
<p>Run <code>npm run console:build</code> (or start the service with <code>npm start</code>, which builds it), then reload this page.</p>
</body>`,
  { "cache-control": "no-store", "retry-after": "5" },
);

async function readIfFile(path: string): Promise<Buffer | undefined> {
  try {
    if (!(await stat(path)).isFile()) return undefined;
    return await readFile(path);
  } catch {
    return undefined;
  }
}

/**
 * The file under `dist` that a /console/<rest> path names, or a 400/404. Decoding happens once,
 * here; the result must stay inside `dist` (no `..`, no encoded slashes, no NUL bytes).
 */
export function resolveConsolePath(dist: string, rest: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    throw new AppError("INVALID_REQUEST", "The path is not valid percent-encoding.");
  }
  const segments = decoded.split("/");
  if (decoded.includes("\0") || decoded.includes("\\") || segments.some((s) => s === ".." || s === ".")) {
    throw new AppError("NOT_FOUND", "Nothing is served at this path.");
  }
  const target = resolve(dist, ...segments.filter(Boolean));
  if (target !== dist && !target.startsWith(dist + sep)) throw new AppError("NOT_FOUND", "Nothing is served at this path.");
  return target;
}

export function consoleRoutes(db: Db, dist: string = CONSOLE_DIST): Route[] {
  async function serveIndex(): Promise<HttpResponse> {
    const body = await readIfFile(join(dist, "index.html"));
    if (!body) return notBuilt;
    return { status: 200, headers: { "content-type": contentTypes[".html"], "cache-control": "no-cache", ...securityHeaders }, body };
  }

  async function serve(request: HttpRequest): Promise<HttpResponse> {
    const rest = request.params["*"];
    if (rest === undefined) return { status: 308, headers: { location: "/console/" } };
    const target = resolveConsolePath(dist, rest);
    const extension = extname(target);
    // No extension: a page of the single-page app (/console/organizations/…).
    if (!extension) return serveIndex();
    const body = await readIfFile(target);
    if (!body) throw new AppError("NOT_FOUND", "Nothing is served at this path.");
    const hashed = target.startsWith(join(dist, "assets") + sep);
    return {
      status: 200,
      headers: {
        "content-type": contentTypes[extension] ?? "application/octet-stream",
        "cache-control": extension === ".html" ? "no-cache" : hashed ? "public, max-age=31536000, immutable" : "public, max-age=3600",
        ...securityHeaders,
      },
      body,
    };
  }

  return [
    { method: "GET", path: "/", handler: async () => ({ status: 302, headers: { location: "/console/", "cache-control": "no-store" } }) },
    {
      // Whether anyone has signed up yet: a fresh install opens on "Create the first account".
      method: "GET",
      path: "/console/api/status",
      handler: async () =>
        json(200, { firstRun: (await db.user.findFirst({ select: { id: true } })) === null }, { "cache-control": "no-store" }),
    },
    { method: "GET", path: "/console/*", handler: serve },
  ];
}
