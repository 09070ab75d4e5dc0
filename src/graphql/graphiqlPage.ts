import { createHash } from "node:crypto";
import type { Plugin } from "graphql-yoga";

/**
 * GraphiQL's page, rendered once, and the headers that keep it from being framed or fed scripts.
 *
 * A page elsewhere could frame GraphiQL with the operator's session cookie and a query pre-filled
 * from `?query=`, and one click on Run ran it (an outside review made a victim invite the attacker
 * as OWNER that way). So the page is sent with `frame-ancestors 'none'` and `X-Frame-Options: DENY`,
 * and with a Content-Security-Policy whose scripts are exactly the page's own inline ones (by
 * hash): nothing injected into it runs, and it talks to this origin only.
 */
export interface GraphiQLPage {
  /** yoga's `renderGraphiQL`: the bundled page, built on first use (a 9 MB module) and kept. */
  render(options: object): Promise<string>;
  /** Adds the page's headers to yoga's HTML responses (GraphiQL is yoga's only HTML). */
  plugin: Plugin;
}

const FRAMING = { "x-frame-options": "DENY", "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" };

function policyFor(html: string): string {
  const hashes = [...html.matchAll(/<script(?:\s[^>]*)?>([\s\S]*?)<\/script>/g)]
    .filter((match) => !/\ssrc=/.test(match[0].slice(0, match[0].indexOf(">"))))
    .map((match) => `'sha256-${createHash("sha256").update(match[1]).digest("base64")}'`);
  return [
    "default-src 'self'",
    `script-src 'self' ${hashes.join(" ")}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    // The editor's language services run in workers made from blobs.
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function createGraphiQLPage(): GraphiQLPage {
  let page: Promise<{ html: string; policy: string }> | undefined;
  // Until the page is built, the strictest policy: nothing but what this origin serves.
  let policy = "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  return {
    render(options) {
      // The options are the same on every request (yoga's `graphiql` setting): one page.
      page ??= import("@graphql-yoga/render-graphiql").then(({ renderGraphiQL }) => {
        const html = renderGraphiQL(options);
        policy = policyFor(html);
        return { html, policy };
      });
      return page.then((built) => built.html);
    },
    plugin: {
      onResponse: ({ response }) => {
        if (!response.headers.get("content-type")?.startsWith("text/html")) return;
        response.headers.set("content-security-policy", policy);
        for (const [name, value] of Object.entries(FRAMING)) response.headers.set(name, value);
      },
    },
  };
}
