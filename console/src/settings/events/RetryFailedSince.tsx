import { useState } from "react";
import { useMutation } from "urql";
import { useToast } from "../../components/Toasts.tsx";
import { describeError } from "../../errors.ts";
import { graphql } from "../../generated/gql.ts";

const RetryFailedMutation = graphql(`
  mutation ConsoleRetryFailed($deploymentId: ID!, $since: DateTime!) { retryFailedDeliveries(deploymentId: $deploymentId, since: $since) }
`);

/** Retries every failed delivery since a moment (after the operator's server was fixed). */
export function RetryFailedSince({ deploymentId, onDone }: { deploymentId: string; onDone(): void }) {
  const [since, setSince] = useState("");
  const [state, run] = useMutation(RetryFailedMutation);
  const toast = useToast();
  return (
    <form
      className="inline-form retry-failed"
      aria-label="Retry failed deliveries"
      onSubmit={async (event) => {
        event.preventDefault();
        if (!since) return;
        const result = await run({ deploymentId, since: new Date(since).toISOString() });
        if (result.error) return toast.error(describeError(result.error));
        const count = result.data!.retryFailedDeliveries;
        toast.info(count === 0 ? "No failed delivery since then." : `${count} failed ${count === 1 ? "delivery" : "deliveries"} retrying now.`);
        onDone();
      }}
    >
      <label>
        Retry every failed delivery since
        <input type="datetime-local" step={1} required value={since} onChange={(e) => setSince(e.target.value)} />
      </label>
      <button type="submit" className="button small" disabled={state.fetching || !since}>
        Retry failed
      </button>
    </form>
  );
}
