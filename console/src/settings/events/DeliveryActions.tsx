import { type CombinedError, useMutation } from "urql";
import { useToast } from "../../components/Toasts.tsx";
import { describeError } from "../../errors.ts";
import { graphql } from "../../generated/gql.ts";
import type { Delivery } from "./eventLog.ts";

const ReplayDeliveryMutation = graphql(`
  mutation ConsoleReplayDelivery($id: ID!) { replayDelivery(id: $id) { id status } }
`);

const RetryDeliveryMutation = graphql(`
  mutation ConsoleRetryDelivery($id: ID!) { retryDelivery(id: $id) { id status } }
`);

const CancelDeliveryMutation = graphql(`
  mutation ConsoleCancelDelivery($id: ID!) { cancelDelivery(id: $id) { id status } }
`);

/** What an owner or admin can do with a delivery in its state: retry it now, cancel it, replay it. */
export function DeliveryActions({ delivery, onChanged }: { delivery: Delivery; onChanged(): void }) {
  const [, replay] = useMutation(ReplayDeliveryMutation);
  const [, retry] = useMutation(RetryDeliveryMutation);
  const [, cancel] = useMutation(CancelDeliveryMutation);
  const toast = useToast();
  const act = async (run: Promise<{ error?: CombinedError }>, done: string) => {
    const result = await run;
    if (result.error) return toast.error(describeError(result.error));
    toast.info(done);
    onChanged();
  };
  return (
    <>
      {(delivery.status === "PENDING" || delivery.status === "FAILED") && (
        <button type="button" className="button small" onClick={() => act(retry({ id: delivery.id }), "Retrying now.")}>
          Retry now
        </button>
      )}
      {delivery.status === "PENDING" && (
        <button type="button" className="button small danger" onClick={() => act(cancel({ id: delivery.id }), "Delivery cancelled: it will not be attempted again.")}>
          Cancel
        </button>
      )}
      {delivery.status === "SUCCEEDED" && (
        <button type="button" className="button small" onClick={() => act(replay({ id: delivery.id }), "Delivery queued again with the same webhook-id.")}>
          Replay
        </button>
      )}
    </>
  );
}
