import type { ParseArgsConfig } from "node:util";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { buildForwardedRequest, forwardedBody } from "../delivery/forwardedRequest.ts";
import {
  connectionFrom,
  connectionOptions,
  explainFailure,
  type GraphQLErrors,
  inline,
  isCloseEvent,
  networkReason,
  note,
  out,
  parseUrl,
  reportingCliErrors,
  resolveDeployment,
  version,
} from "./connection.ts";

export const listenHelp = `Usage: switchyard listen (--api-key KEY | --token TOKEN) [--deployment ID] [options]

Prints each event forwarded for a deployment as it happens, one line each, and with --forward-to
re-sends it to a local URL exactly as Switchyard sends it to the forwarding URL (the same JSON body
and Standard Webhooks headers, signed with the deployment's signing secret).

Options:
  --url URL          Switchyard's address (default http://localhost:4000)
  --deployment ID    The deployment (environment) to watch; its id is in the console. Optional
                     when the credentials see only one (an API key always does)
  --api-key KEY      The deployment's API key (sy_…), or
  --token TOKEN      a console session token
  --forward-to URL   Also POST each event to this local URL and print its status
  -h, --help         This help

Reconnects by itself when the connection drops, and then first prints the events accepted while it
was away (after the last one it printed; at most the server's SUBSCRIPTION_REPLAY_LIMIT, and it says
how many older ones it left out). Ctrl-C stops it. When the credentials stop working while it runs
(the session logged out, the key replaced, the user removed from the organization), it prints the
server's reason and exits 1.

Example:
  switchyard listen --api-key sy_live_… --deployment cm4… --forward-to http://localhost:3000/hook
`;

export const listenOptions = {
  ...connectionOptions,
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
  /** The watched resource's params; null when the event is not tied to a resource. */
  resource?: Record<string, string> | null;
  delivery: { status: string; attempts: number; lastStatusCode: number | null } | null;
}

interface DeliveryUpdate {
  eventId: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
}

const FORWARDED_EVENTS = `subscription ListenForwardedEvents($deploymentId: ID!, $after: ID) {
  forwardedEvents(deploymentId: $deploymentId, after: $after) {
    id type connector trigger account resource occurredAt payload delivery { status attempts lastStatusCode }
  }
}`;
const DELIVERY_UPDATES = `subscription ListenDeliveryUpdates($deploymentId: ID!) {
  deliveryUpdates(deploymentId: $deploymentId) { eventId status attempts lastStatusCode lastError }
}`;
export function listen(values: Record<string, unknown>): Promise<number> {
  return reportingCliErrors(() => run(values));
}

async function run(values: Record<string, unknown>): Promise<number> {
  const connection = connectionFrom(values);
  const { base, credentials } = connection;
  const forwardTo = values["forward-to"] === undefined ? undefined : parseUrl(String(values["forward-to"]), "--forward-to");
  const target = await resolveDeployment(connection, values.deployment as string | undefined);
  const deploymentId = target.id;

  let signingSecret: string | undefined;
  if (forwardTo) {
    if (target.signingSecret) {
      signingSecret = target.signingSecret;
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
        else note(`Ready. Watching deployment "${inline(target.name)}" (${inline(deploymentId)})${forwardTo ? `, forwarding to ${forwardTo}` : ""}. Ctrl-C to stop.`);
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
      note(explainFailure(error, connection, deploymentId));
      stop(1);
    };

    // Sends forwarded events to --forward-to one at a time, in order of arrival.
    let forwarding = Promise.resolve();
    // graphql-ws re-sends a subscription's payload object as it is when it reconnects, so keeping
    // `after` on it current makes every reconnect resume after the last event printed.
    const resume: { after?: string } = {};
    const watch = <T>(query: string, field: string, onData: (data: T, extensions?: Record<string, unknown>) => void, resumable = false) => {
      const variables: Record<string, unknown> = resumable ? Object.assign(resume, { deploymentId }) : { deploymentId };
      let pausedFor: number | undefined;
      client.subscribe<Record<string, T>>(
        { query, variables },
        {
          next: (result) => {
            const errors = result.errors as GraphQLErrors | undefined;
            if (errors?.length) {
              const code = errors[0].extensions?.code;
              if (code === "EVENTS_DROPPED") note(`! ${errors[0].message}`);
              else if (code === "LIVE_DEGRADED") {
                // The server lost Redis: wait as it says, then subscribe again after the last event printed.
                if (pausedFor === undefined && field === "forwardedEvents") note(`! ${errors[0].message}`);
                pausedFor = Number(errors[0].extensions?.retryAfter ?? 5);
              } else fail(errors);
              return;
            }
            if (result.data?.[field]) onData(result.data[field], result.extensions as Record<string, unknown> | undefined);
          },
          error: fail,
          // The server ends a subscription when this listener fell behind: pick up again (after the
          // last event printed, so the dropped ones are replayed). When it ends one because these
          // credentials lost access, its last result (an error, above) has already stopped listen.
          complete: () => {
            if (stopping) return;
            if (pausedFor === undefined) watch(query, field, onData, resumable);
            else setTimeout(() => !stopping && watch(query, field, onData, resumable), pausedFor * 1000);
          },
        },
      );
    };

    watch<ForwardedEvent>(
      FORWARDED_EVENTS,
      "forwardedEvents",
      (event, extensions) => {
        const skipped = Number(extensions?.skipped ?? 0);
        if (skipped > 0) note(`! ${skipped} older event${skipped === 1 ? " was" : "s were"} missed while disconnected and not replayed (over the server's replay limit); the console's event log has them.`);
        out(eventLine(event));
        resume.after = event.id;
        if (forwardTo) forwarding = forwarding.then(() => forward(event, deploymentId, forwardTo, signingSecret));
      },
      true,
    );
    watch<DeliveryUpdate>(DELIVERY_UPDATES, "deliveryUpdates", (update) => out(deliveryLine(update)));
  });
}

async function forward(event: ForwardedEvent, deploymentId: string, url: string, signingSecret: string | undefined): Promise<void> {
  // The body and headers of SPEC §3, so a local handler sees exactly what production sends.
  const { body, headers } = buildForwardedRequest({
    eventId: event.id,
    body: forwardedBody({ ...event, payloadJson: JSON.stringify(event.payload ?? null) }, deploymentId),
    at: new Date(),
    userAgent: `Switchyard/${version} (listen)`,
    signing: signingSecret ? [signingSecret] : undefined,
  });
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
  // The resource as name=value pairs (project_id=278964), only for events of a watched resource.
  const resource = event.resource ? `  resource=${inline(Object.entries(event.resource).map(([name, value]) => `${name}=${value}`).join(","))}` : "";
  return `${stamp(new Date(event.occurredAt))}  --> ${inline(event.type)}  account=${inline(event.account)}${resource}  [${inline(event.id)}]  ${inline(delivery)}`;
}

function deliveryLine(update: DeliveryUpdate): string {
  const detail = update.lastStatusCode ? `HTTP ${update.lastStatusCode}` : inline(update.lastError ?? "");
  return `${stamp(new Date())}      delivery ${inline(update.status)} [${inline(update.eventId)}] attempt ${update.attempts}${detail ? `: ${detail}` : ""}`;
}

function stamp(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}
