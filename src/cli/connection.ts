/**
 * What the client commands (listen, trigger) share: credentials from flags, GraphQL over HTTP to the
 * service, picking the deployment, and failures explained in terms of what to pass or fix.
 */

export class CliError extends Error {}

/**
 * What a terminal would obey rather than show: C0 controls (except the line feeds and tabs of the
 * CLI's own messages), DEL, C1 controls (U+009B alone is a CSI) and bidi overrides and isolates.
 * Names, reasons and event fields come from the server and may hold ESC sequences (an OSC 8 link
 * that hides its target, OSC 52 writing the clipboard, a screen clear): every line printed loses them.
 */
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
export const printable = (text: string): string => text.replace(TERMINAL_CONTROLS, "");
/** A value from the server shown inside one line: no line breaks or tabs either, so it cannot forge a line. */
export const inline = (value: unknown): string => printable(String(value)).replace(/[\n\t]/g, " ");

export const out = (line: string) => process.stdout.write(`${printable(line)}\n`);
export const note = (line: string) => process.stderr.write(`${printable(line)}\n`);

/** `accessEnded`: a running subscription was ended because the credentials lost access (logged out, key replaced, removed). */
export type GraphQLErrors = { message: string; extensions?: { code?: string; accessEnded?: boolean; retryAfter?: number } }[];
export type Kind = "api-key" | "token";

export { version } from "../version.ts";

export const connectionOptions = {
  url: { type: "string", default: "http://localhost:4000" },
  deployment: { type: "string" },
  "api-key": { type: "string" },
  token: { type: "string" },
} as const;

export interface Connection {
  base: string;
  kind: Kind;
  credentials: Record<string, string>;
}

export function connectionFrom(values: Record<string, unknown>): Connection {
  const base = parseUrl(String(values.url), "--url").replace(/\/+$/, "");
  const apiKey = values["api-key"] as string | undefined;
  const token = values.token as string | undefined;
  if (!apiKey && !token) throw new CliError("Pass --api-key <key> (the deployment's API key) or --token <session token>.");
  if (apiKey && token) throw new CliError("Pass either --api-key or --token, not both.");
  return { base, kind: apiKey ? "api-key" : "token", credentials: apiKey ? { "x-api-key": apiKey } : { authorization: `Bearer ${token}` } };
}

/** One GraphQL operation over HTTP; a service that cannot be reached or is not Switchyard is a CliError. */
export async function request<T>(connection: Connection, query: string, variables: Record<string, unknown>): Promise<{ data?: T | null; errors?: GraphQLErrors }> {
  let response: Response;
  try {
    response = await fetch(`${connection.base}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...connection.credentials },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new CliError(
      `Cannot reach Switchyard at ${connection.base} (${networkReason(error)}).\n` +
        "Is it running? Start it with `npx switchyard serve` (or `npm start`), or pass its address with --url.",
    );
  }
  const body = (await response.json().catch(() => undefined)) as { data?: T | null; errors?: GraphQLErrors } | undefined;
  if (!body || (!body.data && !body.errors)) {
    throw new CliError(`${connection.base}/graphql answered ${response.status} and is not a Switchyard GraphQL endpoint. Check --url.`);
  }
  return body;
}

export interface Target {
  id: string;
  name: string;
  signingSecret: string | null;
}

const TARGET = `query CliTarget($id: ID!) { deployment(id: $id) { id name signingSecret } }`;
const VISIBLE = `query CliDeployments { deployments { id name organization { name } } }`;

/**
 * The deployment named by --deployment or, without it, the only one the credentials can see (an
 * API key sees exactly one). Several: they are listed with their ids, and --deployment is asked for.
 */
export async function resolveDeployment(connection: Connection, deploymentId: string | undefined): Promise<Target> {
  let id = deploymentId;
  if (!id) {
    const body = await request<{ deployments: { id: string; name: string; organization: { name: string } }[] }>(connection, VISIBLE, {});
    const visible = body.data?.deployments;
    if (!visible) throw new CliError(explainFailure(body.errors ?? [], connection));
    if (visible.length === 0) throw new CliError("These credentials see no deployment. Create an organization in the console, or use a deployment's API key.");
    if (visible.length > 1) {
      const label = (d: (typeof visible)[number]) => `${inline(d.organization.name)} / ${inline(d.name)}`;
      const width = Math.max(...visible.map((d) => label(d).length));
      throw new CliError(
        "These credentials see several deployments; pass one with --deployment <id>:\n" +
          visible.map((d) => `  ${label(d).padEnd(width)}  ${inline(d.id)}`).join("\n"),
      );
    }
    id = visible[0].id;
  }
  const body = await request<{ deployment: Target | null }>(connection, TARGET, { id });
  const deployment = body.data?.deployment;
  if (!deployment) throw new CliError(explainFailure(body.errors ?? [{ message: "not found", extensions: { code: "FORBIDDEN" } }], connection, id));
  return deployment;
}

export function explainFailure(error: unknown, connection: Pick<Connection, "base" | "kind">, deploymentId?: string): string {
  const errors = Array.isArray(error) ? (error as GraphQLErrors) : undefined;
  const closeCodes: Record<number, string> = { 4401: "UNAUTHENTICATED", 4403: "FORBIDDEN", 4429: "RATE_LIMITED" };
  const code = errors?.[0]?.extensions?.code ?? (isCloseEvent(error) ? closeCodes[error.code] : undefined);
  const reason = errors?.[0]?.message ?? (isCloseEvent(error) ? error.reason : error instanceof Error ? error.message : String(error));
  // The server's own words say what happened; the second line says what to pass next time.
  const ended = errors?.[0]?.extensions?.accessEnded === true;
  switch (code) {
    case "UNAUTHENTICATED":
      return connection.kind === "api-key"
        ? `The API key ${ended ? "stopped working" : "was refused"}: ${reason}\nGenerate a new key in the console (the deployment's API key section) and pass it with --api-key.`
        : `The session token ${ended ? "stopped working" : "was refused"}: ${reason}\nLog in to the console again and pass the new token with --token, or use --api-key.`;
    case "FORBIDDEN":
      if (ended) return `These credentials may no longer watch deployment ${deploymentId ?? "(the one given)"}: ${reason}`;
      return (
        `These credentials may not watch deployment ${deploymentId ?? "(the one given)"}.\n` +
        "Check --deployment (copy the id from the console); an API key only sees its own deployment."
      );
    case "RATE_LIMITED":
      return `Switchyard is rate limiting these credentials: ${reason} Wait a minute and run the command again.`;
    case "SERVICE_UNAVAILABLE": {
      // A refusal for now (a low disk, a database outage): the server says when to come back.
      const retryAfter = errors?.[0]?.extensions?.retryAfter;
      return `Switchyard cannot take this now: ${reason}\nRun the command again ${retryAfter ? `in ${retryAfter} s` : "in a minute"}.`;
    }
    default:
      if (!reason) return `Stopped: the connection to ${connection.base} failed.`;
      // The server's messages are sentences already; a close reason may not be.
      return `Stopped: ${reason}${/[.!?]$/.test(reason) ? "" : "."}`;
  }
}

export function parseUrl(value: string, flag: string): string {
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error();
    return url.toString().replace(/\/$/, url.pathname === "/" ? "" : "/");
  } catch {
    throw new CliError(`${flag} must be an http:// or https:// URL, e.g. http://localhost:4000 (got "${value}").`);
  }
}

export function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code === "ECONNREFUSED") return "connection refused";
  if (cause?.code === "ENOTFOUND") return "unknown host";
  if ((error as Error)?.name === "TimeoutError") return "no answer within the timeout";
  return cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error);
}

export function isCloseEvent(value: unknown): value is { code: number; reason: string } {
  return typeof value === "object" && value !== null && "code" in value && typeof (value as { code: unknown }).code === "number";
}

/** Runs a command body: a CliError is printed (it says what to do) and exits 1. */
export async function reportingCliErrors(run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CliError) {
      note(error.message);
      return 1;
    }
    throw error;
  }
}
