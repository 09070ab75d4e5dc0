import type { ResultOf } from "@graphql-typed-document-node/core";
import { useMemo } from "react";
import { type CombinedError, useMutation, useQuery, useSubscription } from "urql";
import { useToast } from "../components/Toasts.tsx";
import { describeError } from "../errors.ts";
import { formatFromNow, formatSeconds } from "../format.ts";
import { graphql } from "../generated/gql.ts";

/**
 * The deployment's forwarding health, read once by the deployment page and handed to every page
 * that shows forwarding (the navigation's badge, Overview, Events, Trigger Forwarding): whether
 * forwarding is paused or disabled, and whether the endpoint is failing (deliveryStats counts
 * attempts: a delivery only fails after a day of retries, an attempt fails at once).
 */
const HealthQuery = graphql(`
  query ConsoleDeploymentHealth($id: ID!) {
    deployment(id: $id) {
      id
      forwardingSettings { forwardingUrl status disabledReason statusChangedAt }
      deliveryStats(hours: 24) {
        attempts attemptSuccessRate
        failingEndpoint { url consecutiveFailures since lastAttemptAt lastStatusCode lastError nextAttemptAt }
      }
    }
  }
`);

const HealthDeliveryUpdates = graphql(`
  subscription ConsoleHealthDeliveryUpdates($deploymentId: ID!) { deliveryUpdates(deploymentId: $deploymentId) { id status } }
`);

const ResumeMutation = graphql(`
  mutation ConsoleResumeForwarding($deploymentId: ID!) { resumeForwarding(deploymentId: $deploymentId) { status } }
`);

export type HealthData = NonNullable<ResultOf<typeof HealthQuery>["deployment"]>;

export interface DeploymentHealth {
  data: HealthData | undefined;
  /** Read again now (after pausing, resuming, saving a URL). */
  reload(): void;
}

/** The live health: read again (at most every 2 s) whenever a delivery of the deployment changes. */
export function useDeploymentHealth(deploymentId: string): DeploymentHealth {
  const [{ data }, refetch] = useQuery({ query: HealthQuery, variables: { id: deploymentId } });
  const throttled = useMemo(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    return () => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        refetch({ requestPolicy: "network-only" });
      }, 2000);
    };
  }, [refetch]);
  useSubscription({ query: HealthDeliveryUpdates, variables: { deploymentId } }, (_prev: number | undefined) => (throttled(), Date.now()));
  return useMemo(() => ({ data: data?.deployment ?? undefined, reload: () => refetch({ requestPolicy: "network-only" }) }), [data, refetch]);
}

/** "answered 500" / "did not answer (timeout)": what the endpoint did last. */
function lastAnswer(failing: NonNullable<HealthData["deliveryStats"]["failingEndpoint"]>): string {
  if (failing.lastStatusCode !== null && failing.lastStatusCode !== undefined) return `answered ${failing.lastStatusCode}`;
  return failing.lastError ? `did not answer (${failing.lastError})` : "did not answer";
}

/** One line: "Your endpoint answered 500 to the last 4 attempts, next retry in 3 minutes." */
export function failingSentence(failing: NonNullable<HealthData["deliveryStats"]["failingEndpoint"]>, paused: boolean): string {
  const count = failing.consecutiveFailures === 1 ? "the last attempt" : `the last ${failing.consecutiveFailures} attempts`;
  const next = paused ? "no retry while forwarding is stopped" : failing.nextAttemptAt ? `next retry ${formatFromNow(failing.nextAttemptAt)}` : "no retry is scheduled";
  return `Your endpoint ${lastAnswer(failing)} to ${count}, ${next}.`;
}

/** The short badge for the navigation: what needs attention first. */
export function healthBadge(health: HealthData | undefined): { text: string; tone: "bad" | "warn" } | undefined {
  const status = health?.forwardingSettings?.status;
  if (status === "DISABLED") return { text: "Forwarding disabled", tone: "bad" };
  if (status === "PAUSED") return { text: "Forwarding paused", tone: "warn" };
  if (health?.deliveryStats.failingEndpoint) return { text: "Endpoint failing", tone: "bad" };
  return undefined;
}

/**
 * The banners every page that shows forwarding starts with: paused or disabled (with Resume for
 * owners and admins) and a failing endpoint. Nothing when all is well.
 */
export function ForwardingHealth({ health, deploymentId, canManage }: { health: DeploymentHealth; deploymentId: string; canManage: boolean }) {
  const [resuming, resume] = useMutation(ResumeMutation);
  const toast = useToast();
  const settings = health.data?.forwardingSettings;
  const failing = health.data?.deliveryStats.failingEndpoint;
  const stopped = settings?.status === "PAUSED" || settings?.status === "DISABLED";
  const act = async (run: (variables: { deploymentId: string }) => Promise<{ error?: CombinedError }>, message: string) => {
    const result = await run({ deploymentId });
    if (result.error) return toast.error(describeError(result.error));
    toast.info(message);
    health.reload();
  };
  if (!settings && !failing) return null;
  return (
    <>
      {settings && stopped && (
        <div className={`banner ${settings.status === "DISABLED" ? "bad" : "warn"}`} role="status" data-testid="forwarding-banner">
          <div>
            <strong>{settings.status === "DISABLED" ? "Forwarding is disabled" : "Forwarding is paused"}</strong>
            {settings.statusChangedAt && <span className="muted"> since {formatSeconds(settings.statusChangedAt)}</span>}
            <p>{settings.status === "DISABLED" ? settings.disabledReason : "New events are recorded and their deliveries held: nothing is sent, nothing is dropped."}</p>
          </div>
          {canManage && (
            <button type="button" className="button primary" disabled={resuming.fetching} onClick={() => act(resume, "Forwarding resumed: held deliveries are going out, oldest first.")}>
              Resume forwarding
            </button>
          )}
        </div>
      )}
      {failing && (
        <div className="banner bad" role="status" data-testid="failing-endpoint">
          <div>
            <strong>{failingSentence(failing, stopped)}</strong>
            <p>
              {failing.url && (
                <>
                  <code>{failing.url}</code> ·{" "}
                </>
              )}
              failing since {formatSeconds(failing.since)}. Check the endpoint, then retry from Events.
            </p>
          </div>
        </div>
      )}
    </>
  );
}
