import { useEffect, useId } from "react";
import { useMutation } from "urql";
import { useToast } from "../components/Toasts.tsx";
import { formatDate, formatFromNow } from "../format.ts";
import { graphql } from "../generated/gql.ts";
import type { ProviderSubscriptionStatus } from "../generated/graphql.ts";

/** What the connection detail query reads of each subscription (ConnectedAccountsSection). */
export interface ProviderSubscriptionRow {
  id: string;
  resource: string;
  events: string[];
  status: ProviderSubscriptionStatus;
  providerId?: string | null;
  expiresAt?: string | null;
  lastRenewedAt?: string | null;
  lastError?: string | null;
  nextAttemptAt?: string | null;
}

const RetryMutation = graphql(`
  mutation ConsoleRetryProviderSubscription($id: ID!) {
    retryProviderSubscription(id: $id) { id status nextAttemptAt lastError }
  }
`);

/** The status in words (never colour alone) and its tone. */
const statusBadge: Record<ProviderSubscriptionStatus, { label: string; tone: string }> = {
  PENDING: { label: "Pending", tone: "warn" },
  ACTIVE: { label: "Active", tone: "ok" },
  FAILED: { label: "Failed", tone: "bad" },
  DELETED: { label: "Deleted", tone: "grey" },
};

/** While a subscription is not live, the list is read again this often: a retry's outcome shows without a reload. */
const UNSETTLED_REFRESH_MS = 3_000;

/** A time as "in 2 days" with the date beside it, in a <time> element. */
function When({ value }: { value: string | null | undefined }) {
  if (!value) return <>—</>;
  return (
    <time dateTime={value} title={formatDate(value)}>
      {formatFromNow(value)} <span className="muted">({formatDate(value)})</span>
    </time>
  );
}

/**
 * A connection's subscriptions at the provider (per-account webhooks, channels, watches): status,
 * what they watch, when they expire, the last renewal and error, the next attempt, and Retry now
 * for owners and admins.
 */
export function ConnectionSubscriptions({
  account,
  subscriptions,
  canManage,
  reload,
}: {
  account: string;
  subscriptions: readonly ProviderSubscriptionRow[];
  canManage: boolean;
  reload: () => void;
}) {
  const [retry, retryNow] = useMutation(RetryMutation);
  const toast = useToast();
  const titleId = useId();
  const unsettled = subscriptions.some((s) => s.status === "PENDING" || s.status === "FAILED" || s.lastError);

  useEffect(() => {
    if (!unsettled) return;
    const timer = setInterval(reload, UNSETTLED_REFRESH_MS);
    return () => clearInterval(timer);
  }, [unsettled, reload]);

  const onRetry = async (subscription: ProviderSubscriptionRow) => {
    const result = await retryNow({ id: subscription.id });
    if (result.error) {
      toast.error(result.error.graphQLErrors[0]?.message ?? "Could not retry the subscription. Try again.");
      return;
    }
    toast.success(`Retrying the ${subscription.resource || "account"} subscription of ${account} now.`);
    reload();
  };

  return (
    <>
      <h3 id={titleId}>Subscriptions</h3>
      {subscriptions.length === 0 ? (
        <p className="muted">None: this connection's listed triggers need no subscription at the provider.</p>
      ) : (
        <table className="table" aria-labelledby={titleId}>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Resource</th>
              <th scope="col">Events</th>
              <th scope="col">Expires</th>
              <th scope="col">Last renewed</th>
              <th scope="col">Last error</th>
              <th scope="col">Next attempt</th>
              {canManage && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {subscriptions.map((subscription) => {
              const badge = statusBadge[subscription.status];
              const what = subscription.resource || "whole account";
              return (
                <tr key={subscription.id}>
                  <td data-label="Status">
                    <span className={`badge ${badge.tone}`}>{badge.label}</span>
                  </td>
                  <td data-label="Resource">{subscription.resource ? <code>{subscription.resource}</code> : <span className="muted">whole account</span>}</td>
                  <td data-label="Events">{subscription.events.length ? subscription.events.map((e) => <code key={e}>{e} </code>) : "—"}</td>
                  <td data-label="Expires">
                    <When value={subscription.expiresAt} />
                  </td>
                  <td data-label="Last renewed">
                    <When value={subscription.lastRenewedAt} />
                  </td>
                  <td data-label="Last error">{subscription.lastError ?? "—"}</td>
                  <td data-label="Next attempt">
                    <When value={subscription.nextAttemptAt} />
                  </td>
                  {canManage && (
                    <td className="row-actions">
                      {subscription.status !== "DELETED" && (
                        <button type="button" className="button small" disabled={retry.fetching} onClick={() => onRetry(subscription)}>
                          Retry now<span className="visually-hidden"> the {what} subscription</span>
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </>
  );
}
