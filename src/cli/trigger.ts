import type { ParseArgsConfig } from "node:util";
import { CliError, connectionFrom, connectionOptions, explainFailure, inline, out, reportingCliErrors, request, resolveDeployment } from "./connection.ts";

export const triggerHelp = `Usage: switchyard trigger <connector>.<trigger> (--api-key KEY | --token TOKEN) [--deployment ID] [--url URL]

Sends a test event: the trigger's sample payload goes through the real pipeline (stored, forwarded
to the deployment's forwarding URL, shown to \`switchyard listen\`) for the account "test". Prints the
event's id. The deployment is optional when the credentials see only one (an API key always does).

Example:
  switchyard trigger github.issue_opened --api-key sy_live_…
`;

export const triggerOptions = { ...connectionOptions } satisfies ParseArgsConfig["options"];

const SEND_TEST_EVENT = `mutation CliSendTestEvent($deploymentId: ID!, $trigger: TriggerRefInput!) {
  sendTestEvent(deploymentId: $deploymentId, trigger: $trigger) { id type account }
}`;

export function trigger(values: Record<string, unknown>, positionals: string[]): Promise<number> {
  return reportingCliErrors(async () => {
    const [name, ...extra] = positionals;
    const match = /^([a-z0-9_-]+)\.([a-z0-9_.-]+)$/.exec(name ?? "");
    if (!match || extra.length > 0) {
      throw new CliError(`Name one trigger as <connector>.<trigger>, e.g. \`switchyard trigger github.issue_opened\`${name ? ` (got "${positionals.join(" ")}")` : ""}.`);
    }
    const connection = connectionFrom(values);
    const target = await resolveDeployment(connection, values.deployment as string | undefined);
    const body = await request<{ sendTestEvent: { id: string; type: string; account: string } }>(connection, SEND_TEST_EVENT, {
      deploymentId: target.id,
      trigger: { connector: match[1], trigger: match[2] },
    });
    const event = body.data?.sendTestEvent;
    if (!event) {
      const [error] = body.errors ?? [];
      // A wrong trigger name is the caller's to fix; the server's message names what exists.
      if (error?.extensions?.code === "BAD_USER_INPUT" || error?.extensions?.code === "NOT_FOUND") throw new CliError(error.message);
      throw new CliError(explainFailure(body.errors ?? [], connection, target.id));
    }
    out(`Sent ${inline(event.type)} to deployment "${inline(target.name)}" (${inline(target.id)}): event ${inline(event.id)}, account ${inline(event.account)}.`);
    return 0;
  });
}
