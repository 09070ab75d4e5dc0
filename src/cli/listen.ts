import { readFileSync } from "node:fs";
import type { ParseArgsConfig } from "node:util";
import { createClient, type Client } from "graphql-ws";
import { Webhook } from "standardwebhooks";
import WebSocket from "ws";

export const listenHelp = `Usage: switchyard listen --deployment ID (--api-key KEY | --token TOKEN) [options]

Prints each event forwarded for a deployment as it happens, one line each, and with --forward-to
re-sends it to a local URL exactly as Switchyard sends it to the forwarding URL (the same JSON body
and Standard Webhooks headers, signed with the deployment's signing secret).

Options:
  --url URL          Switchyard's address (default http://localhost:4000)
  --deployment ID    The deployment (environment) to watch; its id is in the console
  --api-key KEY      The deployment's API key (sy_…), or
  --token TOKEN      a console session token
  --forward-to URL   Also POST each event to this local URL and print its status
  -h, --help         This help

Reconnects by itself when the connection drops; Ctrl-C stops it.

Example:
  switchyard listen --api-key sy_live_… --deployment cm4… --forward-to http://localhost:3000/hook
`;

export const listenOptions = {
  url: { type: "string", default: "http://localhost:4000" },
  deployment: { type: "string" },
  "api-key": { type: "string" },
  token: { type: "string" },
  "forward-to": { type: "string" },
} satisfies ParseArgsConfig["options"];

interface ForwardedEvent {
  id: string;
  type: string;
  connector: string;
  trigger: string;
  account: string;
  occurredAt: string;
  payload: unknown;
  delivery: { status: string; attempts: number; lastStatusCode: number | null } | null;
}

interface DeliveryUpdate {
  eventId: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
}

type GraphQLErrors = { message: string; extensions?: { code?: string } }[];

const FORWARDED_EVENTS = `subscription ListenForwardedEvents($deploymentId: ID!) {
  forwardedEvents(deploymentId: $deploymentId) {
    id type connector trigger account occurredAt payload delivery { status attempts lastStatusCode }
  }
}`;
const DELIVERY_UPDATES = `subscription ListenDeliveryUpdates($deploymentId: ID!) {
  deliveryUpdates(deploymentId: $deploymentId) { eventId status attempts lastStatusCode lastError }
}`;
const TARGET = `query ListenTarget($id: ID!) { deployment(id: $id) { id name signingSecret } }`;

const version = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

class CliError extends Error {}

const out = (line: string) => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`${line}\n`);

export async function listen(values: Record<string, unknown>): Promise<number> {
  try {
    return await run(values);
  } catch (error) {
    if (error instanceof CliError) {
      note(error.message);
      return 1;
    }
    throw error;
  }
}

async function run(values: Record<string, unknown>): Promise<number> {
  const base = parseUrl(String(values.url), "--url").replace(/\/+$/, "");
  const deploymentId = values.deployment as string | undefined;
  const apiKey = values["api-key"] as string | undefined;
  const token = values.token as string | undefined;
  const forwardTo = values["forward-to"] === undefined ? undefined : parseUrl(String(values["forward-to"]), "--forward-to");
  if (!deploymentId) throw new CliError("Pass --deployment <id>: the deployment whose events to watch (its id is in the console).");
  if (!apiKey && !token) throw new CliError("Pass --api-key <key> (the deployment's API key) or --token <session token>.");
  if (apiKey && token) throw new CliError("Pass either --api-key or --token, not both.");

  const credentials: Record<string, string> = apiKey ? { "x-api-key": apiKey } : { authorization: `Bearer ${token}` };
  const target = await findDeployment(base, credentials, deploymentId, apiKey ? "api-key" : "token");

  let webhook: Webhook | undefined;
  if (forwardTo) {
    if (target.signingSecret) {
      webhook = new Webhook(target.signingSecret);
    } else {
      note("! These credentials may not read the deployment's signing secret (owners and admins only):");
      note("  requests to --forward-to are sent WITHOUT webhook-signature. Use the deployment's API key to sign them.");
    }
  }

  let stopping = false;
  let ready = false;
  let lost = false; // said once per outage, not once per retry
  const client: Client = createClient({
    url: `${base.replace(/^http/, "ws")}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: credentials,
    lazy: false,
    onNonLazyError: () => {}, // reported through the subscriptions' error sinks
    keepAlive: 15_000,
    retryAttempts: Number.POSITIVE_INFINITY,
    // Refused credentials will not get better by retrying; a dropped connection or a restart will.
    shouldRetry: (error) => !(isCloseEvent(error) && [4400, 4401, 4403].includes(error.code)),
    retryWait: async (retries) => {
      const ms = Math.min(30_000, 500 * 2 ** retries) * (0.5 + Math.random() / 2);
      note(`… reconnecting in ${(ms / 1000).toFixed(1)} s`);
      await new Promise((resolve) => setTimeout(resolve, ms));
    },
    on: {
      connected: (_socket, _payload, wasRetry) => {
        lost = false;
        if (wasRetry || ready) note("Reconnected.");
        else note(`Ready. Watching deployment "${target.name}" (${deploymentId})${forwardTo ? `, forwarding to ${forwardTo}` : ""}. Ctrl-C to stop.`);
        ready = true;
      },
      closed: (event) => {
        if (stopping || !ready || lost || !isCloseEvent(event)) return;
        if (event.code === 1000 || event.code === 4401 || event.code === 4403) return;
        lost = true;
        note(`Lost the connection to ${base} (${event.code}${event.reason ? `: ${event.reason}` : ""}).`);
      },
      error: () => {},
    },
  });

  return new Promise<number>((resolve) => {
    const stop = (code: number) => {
      if (stopping) return;
      stopping = true;
      void client.dispose();
      resolve(code);
    };
    process.once("SIGINT", () => {
      note("Stopped.");
      stop(0);
    });
    process.once("SIGTERM", () => stop(0));

    const fail = (error: unknown) => {
      if (stopping) return;
      note(explainFailure(error, base, apiKey ? "api-key" : "token"));
      stop(1);
    };

    // Sends forwarded events to --forward-to one at a time, in order of arrival.
    let forwarding = Promise.resolve();
    const watch = <T>(query: string, field: string, onData: (data: T) => void) => {
      client.subscribe<Record<string, T>>(
        { query, variables: { deploymentId } },
        {
          next: (result) => {
            const errors = result.errors as GraphQLErrors | undefined;
            if (errors?.length) {
              const code = errors[0].extensions?.code;
              if (code === "EVENTS_DROPPED") note(`! ${errors[0].message}`);
              else fail(errors);
              return;
            }
            if (result.data?.[field]) onData(result.data[field]);
          },
          error: fail,
          // The server ends a subscription only when this listener fell behind: pick up again.
          complete: () => {
            if (!stopping) watch(query, field, onData);
          },
        },
      );
    };

    watch<ForwardedEvent>(FORWARDED_EVENTS, "forwardedEvents", (event) => {
      out(eventLine(event));
      if (forwardTo) forwarding = forwarding.then(() => forward(event, deploymentId, forwardTo, webhook));
    });
    watch<DeliveryUpdate>(DELIVERY_UPDATES, "deliveryUpdates", (update) => out(deliveryLine(update)));
  });
}

async function findDeployment(base: string, credentials: Record<string, string>, deploymentId: string, kind: "api-key" | "token") {
  let response: Response;
  try {
    response = await fetch(`${base}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...credentials },
      body: JSON.stringify({ query: TARGET, variables: { id: deploymentId } }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new CliError(
      `Cannot reach Switchyard at ${base} (${networkReason(error)}).\n` +
        "Is it running? Start it with `npx switchyard serve` (or `npm start`), or pass its address with --url.",
    );
  }
  const body = (await response.json().catch(() => undefined)) as
    | { data?: { deployment: { id: string; name: string; signingSecret: string | null } | null } | null; errors?: GraphQLErrors }
    | undefined;
  if (!body || (!body.data && !body.errors)) {
    throw new CliError(`${base}/graphql answered ${response.status} and is not a Switchyard GraphQL endpoint. Check --url.`);
  }
  const deployment = body.data?.deployment;
  if (!deployment) {
    throw new CliError(explainFailure(body.errors ?? [{ message: "not found", extensions: { code: "FORBIDDEN" } }], base, kind, deploymentId));
  }
  return deployment;
}

function explainFailure(error: unknown, base: string, kind: "api-key" | "token", deploymentId?: string): string {
  const errors = Array.isArray(error) ? (error as GraphQLErrors) : undefined;
  const code = errors?.[0]?.extensions?.code ?? (isCloseEvent(error) ? ({ 4401: "UNAUTHENTICATED", 4403: "FORBIDDEN", 4429: "RATE_LIMITED" } as Record<number, string>)[error.code] : undefined);
  const reason = errors?.[0]?.message ?? (isCloseEvent(error) ? error.reason : error instanceof Error ? error.message : String(error));
  switch (code) {
    case "UNAUTHENTICATED":
      return kind === "api-key"
        ? `The API key was refused: ${reason}\nGenerate a new key in the console (the deployment's API key section) and pass it with --api-key.`
        : `The session token was refused: ${reason}\nLog in to the console again and pass the new token with --token, or use --api-key.`;
    case "FORBIDDEN":
      return (
        `These credentials may not watch deployment ${deploymentId ?? "(the one given)"}.\n` +
        "Check --deployment (copy the id from the console); an API key only sees its own deployment."
      );
    case "RATE_LIMITED":
      return `Switchyard is rate limiting these credentials: ${reason} Wait a minute and run listen again.`;
    default:
      return `Listening stopped: ${reason || "the connection to " + base + " failed"}.`;
  }
}

async function forward(event: ForwardedEvent, deploymentId: string, url: string, webhook: Webhook | undefined): Promise<void> {
  // The body and headers of SPEC §3, so a local handler sees exactly what production sends.
  const body = JSON.stringify({
    id: event.id,
    type: event.type,
    connector: event.connector,
    trigger: event.trigger,
    account: event.account,
    deploymentId,
    occurredAt: event.occurredAt,
    data: event.payload,
  });
  const now = new Date();
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": `Switchyard/${version} (listen)`,
    "webhook-id": event.id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
  };
  if (webhook) headers["webhook-signature"] = webhook.sign(event.id, now, body);
  const started = Date.now();
  try {
    const response = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(15_000) });
    await response.arrayBuffer().catch(() => undefined);
    out(`${stamp(new Date())}  <-- [${response.status}] POST ${url} [${event.id}] (${Date.now() - started} ms)`);
  } catch (error) {
    out(`${stamp(new Date())}  <-- [ERR] POST ${url} [${event.id}]: ${networkReason(error)}. Is your local server running?`);
  }
}

function eventLine(event: ForwardedEvent): string {
  const delivery = event.delivery
    ? `delivery ${event.delivery.status}${event.delivery.attempts ? ` (${event.delivery.attempts} attempt${event.delivery.attempts === 1 ? "" : "s"}${event.delivery.lastStatusCode ? `, HTTP ${event.delivery.lastStatusCode}` : ""})` : ""}`
    : "no delivery";
  return `${stamp(new Date(event.occurredAt))}  --> ${event.type}  account=${event.account}  [${event.id}]  ${delivery}`;
}

function deliveryLine(update: DeliveryUpdate): string {
  const detail = update.lastStatusCode ? `HTTP ${update.lastStatusCode}` : update.lastError ?? "";
  return `${stamp(new Date())}      delivery ${update.status} [${update.eventId}] attempt ${update.attempts}${detail ? `: ${detail}` : ""}`;
}

function stamp(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

function parseUrl(value: string, flag: string): string {
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error();
    return url.toString().replace(/\/$/, url.pathname === "/" ? "" : "/");
  } catch {
    throw new CliError(`${flag} must be an http:// or https:// URL, e.g. http://localhost:4000 (got "${value}").`);
  }
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code === "ECONNREFUSED") return "connection refused";
  if (cause?.code === "ENOTFOUND") return "unknown host";
  if ((error as Error)?.name === "TimeoutError") return "no answer within the timeout";
  return cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error);
}

function isCloseEvent(value: unknown): value is { code: number; reason: string } {
  return typeof value === "object" && value !== null && "code" in value && typeof (value as { code: unknown }).code === "number";
}
