import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { getCORSHeadersByRequestAndOptions } from "@whatwg-node/server";
import type { ExecutionResult } from "graphql";
import { processRegularResult } from "graphql-yoga";
import { writeFetchResponse } from "../http/node.ts";
import type { GraphQLContext } from "./context.ts";
import type { PreparedQuery } from "./jitQueries.ts";
import type { OriginPolicy } from "./requestGuard.ts";
import type { GraphQLServer } from "./yoga.ts";

/**
 * A plain `application/json` POST to /graphql — what API clients send — and a plain GET of a query
 * (`?query=…&variables=…`: what the console's GraphQL client sends for queries) served by the same
 * yoga instance without its fetch-API round trip. yoga.fetch would wrap the node request
 * in a web Request, its headers in a Headers object, and the result in a web Response that
 * writeFetchResponse unwraps again: with a warm key or session that layer was the largest cost of
 * a GraphQL request (docs/benchmarks.md). Here the parsed params go straight to yoga's
 * `getResultForParams` — its onParams hooks, then `getEnveloped` (armor's limits, the parse and
 * validation cache, context with the caller, masked errors), then its onExecutionResult hooks — and
 * the result is written the way yoga's own result processor writes it, with the same CORS headers
 * and the Set-Cookie values logIn/logOut asked for. app.ts calls it after the same cross-site
 * request guard (refuseGraphQLRequest) as every /graphql request.
 *
 * Anything else (other methods and content types, batches, malformed bodies or params, an Accept
 * that picks SSE or multipart) returns false and goes through yoga.fetch, so yoga keeps answering
 * those exactly as before. A mutation sent as a GET is refused by yoga's own check (405), which
 * reads the method this request view reports. test/graphql/plainRequests.test.ts compares both paths
 * response by response.
 */
export function createPlainRequestHandler(yoga: GraphQLServer, origins: OriginPolicy) {
  const getResultForParams = yoga.getResultForParams;
  const fetchAPI = yoga.fetchAPI;
  // Accept header → the media type answered with (regularMediaType), remembered for this app.
  const mediaTypes = new Map<string, string | undefined>();

  /**
   * A query yoga prepared for this text before, answered without yoga when nothing about it is out
   * of the ordinary: the JSON of an error-free result, and the context it ran with. Undefined
   * otherwise — the cost limit or the input guard would refuse it, the caller is not authenticated,
   * the compiled query met any error — and yoga then answers the request in full, exactly as it
   * would have (with the context made here: the caller is not authenticated twice). What is skipped
   * is what yoga would only repeat for this text: parsing (armor's token limit), validation (armor's
   * depth, alias and directive limits, introspection) and envelop's hooks around them.
   */
  async function answerPrepared(prepared: PreparedQuery, params: JsonParams, request: NodeRequestView, ip: string) {
    if (yoga.preparedQueries.refuses(prepared, params.variables ?? undefined)) return undefined;
    let context: GraphQLContext;
    try {
      context = await yoga.preparedQueries.context(request, ip, params);
    } catch {
      return undefined; // yoga words the refusal (UNAUTHENTICATED, RATE_LIMITED, …) from the same context
    }
    let result: ExecutionResult;
    try {
      const run = prepared.compiled.query(undefined, context, params.variables ?? {});
      result = run instanceof Promise ? await run : run;
    } catch {
      return undefined; // graphql-jit collects resolvers' errors itself; anything else is yoga's to mask
    }
    if (result.errors || result.extensions) return undefined;
    return { json: JSON.stringify(result), context };
  }

  /** The request's params as yoga would read them, when they are plain (see isPlainParams); else undefined. */
  function plainParams(req: IncomingMessage, url: URL, body: Buffer | undefined): JsonParams | undefined {
    try {
      if (req.method === "POST" && body && isJsonContentType(req.headers["content-type"])) {
        const params: unknown = JSON.parse(body.toString("utf8"));
        return isPlainParams(params) ? params : undefined;
      }
      // yoga reads a GET's params as handleURLSearchParams does: an empty value is no value. A
      // browser's GET (Accept: text/html) is GraphiQL's, where it is on: yoga's to answer.
      if (req.method === "GET" && url.search && !req.headers.accept?.includes("text/html")) {
        const value = (name: string) => url.searchParams.get(name) || undefined;
        const json = (name: string) => {
          const text = value(name);
          return text === undefined ? undefined : JSON.parse(text);
        };
        const params = { query: value("query"), operationName: value("operationName"), variables: json("variables"), extensions: json("extensions") };
        return isPlainParams(params) ? params : undefined;
      }
    } catch {
      // Malformed JSON: yoga answers it with its own 400.
    }
    return undefined;
  }

  return async function servePlainRequest(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer | undefined, ip: string): Promise<boolean> {
    const params = plainParams(req, url, body);
    if (!params) return false;
    const mediaType = regularMediaType(mediaTypes, req.headers.accept);
    if (!mediaType) return false;

    const request = new NodeRequestView(req, url);
    const prepared = yoga.preparedQueries.find(params.query, params.operationName);
    const answered = prepared ? await answerPrepared(prepared, params, request, ip) : undefined;
    // yoga's CORS plugin, with the same per-request options (false: no CORS headers).
    const corsOptions = origins.cors(request as unknown as Request);
    const cors = corsOptions === false ? null : getCORSHeadersByRequestAndOptions(request as unknown as Request, corsOptions);
    if (answered) {
      writeJson(res, answered.json, mediaType, cors, answered.context.cookies);
      return true;
    }
    // A query seen for the first time is compiled (and remembered) as yoga runs it.
    if (!prepared) yoga.compileQueriesOf(request);
    const result = await getResultForParams({ params: params as YogaParams, request: request as unknown as Request }, { ip });
    const cookies = yoga.responseCookies(request);

    if (result && !isAsyncIterable(result) && !result.errors && !result.extensions) {
      // What processRegularResult writes for an error-free result, without building a Response.
      writeJson(res, JSON.stringify(result), mediaType, cors, cookies);
      return true;
    }
    // Errors decide the status (400 for validation under graphql-response+json, 500 for unexpected
    // ones…): leave that to yoga's own processor.
    const response = processRegularResult(result as never, fetchAPI, mediaType);
    for (const [name, value] of Object.entries(cors ?? {})) response.headers.set(name, value);
    for (const cookie of cookies) response.headers.append("set-cookie", cookie);
    await writeFetchResponse(res, response);
    return true;
  };
}

/**
 * The answer to a request yoga refused as malformed by throwing (its parameter checks do, for
 * `variables` that are an array, a number or `true`, when its body limit is off as ours is) rather
 * than by answering: the 4xx and GraphQL error body its own path gives, instead of a 500. Anything
 * else is not ours to answer: undefined.
 */
export function refusedRequestResponse(error: unknown): Response | undefined {
  const refused = error as { message?: unknown; extensions?: { code?: unknown; http?: { status?: unknown } } } | null;
  const status = refused?.extensions?.http?.status;
  if (typeof status !== "number" || status < 400 || status >= 500 || typeof refused?.message !== "string") return undefined;
  const code = typeof refused.extensions?.code === "string" ? refused.extensions.code : "BAD_REQUEST";
  return new Response(JSON.stringify({ errors: [{ message: refused.message, extensions: { code } }] }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}

function writeJson(res: ServerResponse, json: string, mediaType: string, cors: Record<string, string> | null, cookies: string[]) {
  const headers: Record<string, string | string[]> = {
    "content-type": `${mediaType}; charset=utf-8`,
    "content-length": String(Buffer.byteLength(json)),
    ...cors,
  };
  if (cookies.length) headers["set-cookie"] = cookies;
  res.writeHead(200, headers);
  res.end(json);
}

/** yoga's isPOSTJsonRequest, for application/json (the rarer application/graphql+json goes to yoga). */
function isJsonContentType(header: string | undefined): boolean {
  const contentType = header?.split(",")[0];
  return contentType === "application/json" || contentType?.startsWith("application/json;") === true;
}

/**
 * The media type yoga's result processors would answer with, when it is one of the regular JSON
 * ones (they are tried last, so they win whenever the client accepts either); undefined otherwise.
 * Same rules as yoga's getMediaTypesForRequestInOrder: utf-8 only, earlier types preferred.
 */
function regularMediaType(mediaTypes: Map<string, string | undefined>, accept: string | undefined): string | undefined {
  const key = accept ?? "";
  if (mediaTypes.has(key)) return mediaTypes.get(key);
  const chosen = chooseRegularMediaType(accept);
  // Clients send a handful of distinct Accept headers: remember the answers, within reason.
  if (mediaTypes.size >= 100) mediaTypes.clear();
  mediaTypes.set(key, chosen);
  return chosen;
}

function chooseRegularMediaType(accept: string | undefined): string | undefined {
  const requested = (accept || "*/*").replace(/\s/g, "").toLowerCase().split(",").reverse();
  let chosen: string | undefined;
  for (const entry of requested) {
    const [mediaType, ...parameters] = entry.split(";");
    const charset = parameters.find((parameter) => parameter.includes("charset=")) ?? "charset=utf-8";
    if (charset !== "charset=utf-8") continue;
    const [type, subtype] = mediaType.split("/");
    for (const candidate of ["application/graphql-response+json", "application/json"]) {
      const [candidateType, candidateSubtype] = candidate.split("/");
      if ((type === "*" || type === candidateType) && (subtype === "*" || subtype === candidateSubtype)) chosen = candidate;
    }
  }
  return chosen;
}

const PARAM_NAMES = new Set(["query", "variables", "operationName", "extensions"]);
const isObjectOrNothing = (value: unknown) => value == null || (typeof value === "object" && !Array.isArray(value));

type YogaParams = Parameters<GraphQLServer["getResultForParams"]>[0]["params"];
type JsonParams = { query: string; variables?: Record<string, unknown> | null; operationName?: string | null };

/** Params yoga's checks would accept as they are; the rest goes to yoga for its exact 400s. */
function isPlainParams(params: unknown): params is JsonParams {
  if (params === null || typeof params !== "object" || Array.isArray(params)) return false;
  const record = params as Record<string, unknown>;
  for (const name in record) if (record[name] != null && !PARAM_NAMES.has(name)) return false;
  return (
    typeof record.query === "string" &&
    isObjectOrNothing(record.variables) &&
    isObjectOrNothing(record.extensions) &&
    (record.operationName == null || typeof record.operationName === "string")
  );
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/**
 * The parts of a fetch Request that yoga's plugins and our context read (method, url, headers.get),
 * over the node request without copying its headers. Also the key under which the cookie plugin
 * files the request's Set-Cookie values.
 */
class NodeRequestView {
  readonly method: string;
  readonly headers: HeadersView;
  constructor(
    req: IncomingMessage,
    private readonly parsedUrl: URL,
  ) {
    // yoga refuses a mutation over GET (405) by the request's method.
    this.method = req.method === "GET" ? "GET" : "POST";
    this.headers = new HeadersView(req.headers);
  }
  get url(): string {
    return this.parsedUrl.href;
  }
}

class HeadersView {
  constructor(private readonly raw: IncomingHttpHeaders) {}
  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  }
  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }
}
