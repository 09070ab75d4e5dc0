import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { AppError } from "../errors.ts";
import { json, type Route } from "../http/types.ts";
import type { Config } from "../config.ts";
import { version } from "../version.ts";
import { openApiDocument } from "./document.ts";

/**
 * /openapi.json and /docs/api, a reference page rendered by Swagger UI from the npm package's
 * own bundle, served by the service: it works with no internet access (no CDN).
 */

const swaggerUi = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

const assets: Record<string, { file: string; type: string }> = {
  "swagger-ui.css": { file: join(swaggerUi, "swagger-ui.css"), type: "text/css; charset=utf-8" },
  "swagger-ui-bundle.js": { file: join(swaggerUi, "swagger-ui-bundle.js"), type: "text/javascript; charset=utf-8" },
  "init.js": { file: "", type: "text/javascript; charset=utf-8" },
};

// A file of its own, not inline: the page's Content-Security-Policy allows scripts from 'self' only.
const init = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#api", deepLinking: true, tryItOutEnabled: false, validatorUrl: null });\n`;

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Switchyard REST API</title>
<link rel="stylesheet" href="/docs/api/assets/swagger-ui.css">
</head>
<body>
<noscript>This page needs JavaScript. The document itself is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<div id="api"></div>
<script src="/docs/api/assets/swagger-ui-bundle.js"></script>
<script src="/docs/api/assets/init.js"></script>
</body>
</html>
`;

const csp = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; frame-ancestors 'none'";

export function openApiRoutes(config: Pick<Config, "publicUrl">): Route[] {
  const document = JSON.stringify(openApiDocument(config, version));
  const cache = new Map<string, Buffer>();
  return [
    { method: "GET", path: "/openapi.json", handler: async () => json(200, JSON.parse(document), { "access-control-allow-origin": "*" }) },
    {
      method: "GET",
      path: "/docs/api",
      handler: async () => ({ status: 200, headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": csp, "x-frame-options": "DENY" }, body: page }),
    },
    {
      method: "GET",
      path: "/docs/api/assets/:name",
      handler: async (request) => {
        const asset = assets[request.params.name];
        if (!asset) throw new AppError("NOT_FOUND", "No such asset.");
        let body = cache.get(request.params.name);
        if (!body) {
          body = asset.file ? await readFile(asset.file) : Buffer.from(init);
          cache.set(request.params.name, body);
        }
        return { status: 200, headers: { "content-type": asset.type, "cache-control": "public, max-age=3600" }, body };
      },
    },
  ];
}
