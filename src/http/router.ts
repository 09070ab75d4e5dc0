import type { Route, RouteHandler } from "./types.ts";

interface CompiledRoute {
  method: string;
  pattern: string;
  segments: string[];
  handler: RouteHandler;
  problemHeaders?: Record<string, string>;
}

/** `pattern` is the route's path as declared (`/connect/:token`): the metrics label, never the raw path. */
export type RouteMatch =
  | { handler: RouteHandler; params: Record<string, string>; pattern: string; problemHeaders?: Record<string, string> }
  | { methodNotAllowed: true; pattern: string }
  | undefined;

/**
 * Matches a path against `/a/:b/c` patterns; a last segment `*` matches the rest of the path
 * (`/console/*`). A dozen routes: a linear scan is plenty, and the first match wins.
 */
export function createRouter(routes: Route[]) {
  const compiled: CompiledRoute[] = routes.map((route) => ({
    method: route.method,
    pattern: route.path,
    segments: route.path.split("/").slice(1),
    handler: route.handler,
    problemHeaders: route.problemHeaders,
  }));

  return function match(method: string, pathname: string): RouteMatch {
    const parts = pathname.split("/").slice(1);
    let pathMatched: string | undefined;
    for (const route of compiled) {
      const rest = route.segments.at(-1) === "*";
      if (rest ? parts.length < route.segments.length - 1 : route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const segment = route.segments[i];
        if (rest && i === route.segments.length - 1) {
          // A trailing `*` takes the rest of the path, still percent-encoded: the handler decides.
          params["*"] = parts.slice(i).join("/");
          break;
        }
        if (segment.startsWith(":")) {
          if (!parts[i]) {
            ok = false;
            break;
          }
          try {
            params[segment.slice(1)] = decodeURIComponent(parts[i]);
          } catch {
            ok = false;
            break;
          }
        } else if (segment !== parts[i]) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      pathMatched ??= route.pattern;
      if (route.method === method || (method === "HEAD" && route.method === "GET")) return { handler: route.handler, params, pattern: route.pattern, problemHeaders: route.problemHeaders };
    }
    return pathMatched ? { methodNotAllowed: true, pattern: pathMatched } : undefined;
  };
}
