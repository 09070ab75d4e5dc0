import { html, type HttpResponse } from "../../http/types.ts";

/**
 * The hosted connect pages' shell: server-rendered, no JavaScript, one inline stylesheet (the CSP
 * allows nothing else), visible focus, real headings and labels.
 */
export function escapeHtml(value: string): string {
  return value
    .replace(INVISIBLE, (c) => `\\u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`)
    .replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/**
 * Characters that change how the text around them looks without being seen: controls, bidi
 * overrides and isolates (U+202E turns "alice‮gnp.exe" around), zero-width and other format
 * characters, line and paragraph separators, lone surrogates. Text from accounts, organizations
 * and providers shows them as a visible `\u202E` instead of obeying them.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;

const styles = `
*{box-sizing:border-box}
html{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f3f4f6}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:24px}
main{width:100%;max-width:440px;background:#fff;border:1px solid #d9dde3;border-radius:12px;padding:32px;box-shadow:0 1px 3px rgba(0,0,0,.06)}
h1{font-size:1.35rem;line-height:1.3;margin:0 0 12px}
p{margin:0 0 16px}
.brand{display:flex;align-items:center;gap:12px;margin-bottom:20px}
.brand svg{width:40px;height:40px;flex:none}
.brand .name{font-weight:600}
dl{display:grid;grid-template-columns:auto 1fr;gap:6px 16px;margin:0 0 24px;padding:16px;background:#f7f8fa;border-radius:8px}
dt{color:#57606a}
dd{margin:0;font-weight:600;word-break:break-word}
ul.scopes{margin:0 0 20px;padding-left:20px}
ul.scopes li{margin-bottom:6px}
.actions{display:flex;gap:12px;flex-wrap:wrap}
button{font:inherit;font-weight:600;padding:10px 20px;border-radius:8px;border:1px solid transparent;cursor:pointer}
button.primary{background:#1f6feb;color:#fff}
button.primary:hover{background:#1a5fd0}
button.secondary{background:#fff;color:#1b1f24;border-color:#c4cad1}
button.secondary:hover{background:#f3f4f6}
button:focus-visible,a:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
a{color:#1f6feb}
.note{font-size:.875rem;color:#57606a}
.status{font-size:2rem;line-height:1;margin-bottom:12px}
.error h1{color:#b42318}
.field{margin:0 0 16px}
.field label{display:block;font-weight:600;margin-bottom:4px}
.field input{font:inherit;width:100%;padding:8px 10px;border:1px solid #8c959f;border-radius:6px}
.field input:focus-visible{outline:3px solid #f59e0b;outline-offset:1px}
.field input[aria-invalid=true]{border-color:#b42318}
.field .help{font-size:.875rem;color:#57606a;margin:4px 0 0}
.field .field-error{font-size:.875rem;color:#b42318;font-weight:600;margin:4px 0 0}
.small-heading{font-size:1rem;margin:0 0 8px}
.note.after{margin:16px 0 0}
.info .status{color:#1a7f37}
@media (max-width:480px){body{padding:12px;align-items:flex-start}main{padding:20px}h1{font-size:1.2rem}.brand{margin-bottom:12px}}
.alert{border:1px solid #b42318;background:#fef3f2;color:#7a271a;border-radius:8px;padding:12px 16px;margin:0 0 16px}
`;

/** `error`: the red heading of a page that says something went wrong; `info`: a neutral notice (a link that already did its job). */
export function page(status: number, title: string, body: string, options: { error?: boolean; info?: boolean } = {}): HttpResponse {
  return html(
    status,
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)} – Switchyard</title><style>${styles}</style></head>
<body><main${options.error ? ' class="error"' : options.info ? ' class="info"' : ""}>
${body}
</main></body></html>`,
    { "cache-control": "no-store" },
  );
}

export function errorPage(
  status: number,
  title: string,
  message: string,
  hint = "Ask the application that sent you here for a new link.",
  tone: "error" | "info" = "error",
): HttpResponse {
  return page(
    status,
    title,
    `<div class="status" aria-hidden="true">${tone === "info" ? "✓" : "⚠"}</div>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
<p class="note">${escapeHtml(hint)}</p>`,
    tone === "info" ? { info: true } : { error: true },
  );
}

export function brand(icon: string, displayName: string): string {
  // The icon is the connector's own static SVG (trusted data from the registry, never user input).
  return `<div class="brand">${icon}<span class="name">${escapeHtml(displayName)}</span></div>`;
}

/**
 * A connect step that cannot go on, carrying the page to answer with (or the 303 back to the
 * operator's app that ends the flow). Steps return their value or throw this; connectRoutes
 * answers it, so no step returns "a value or a response".
 */
export class PageRefusal extends Error {
  constructor(readonly page: HttpResponse) {
    super(`connect flow refused (${page.status})`);
    this.name = "PageRefusal";
  }
}

export function refuse(page: HttpResponse): never {
  throw new PageRefusal(page);
}

/** "API key", "Account SID and Auth Token", "A, B and C": the fields a connect form asks for. */
export function fieldList(fields: ReadonlyArray<{ label: string }>): string {
  const labels = fields.map((f) => f.label);
  return labels.length === 1 ? labels[0] : `${labels.slice(0, -1).join(", ")} and ${labels.at(-1)}`;
}
