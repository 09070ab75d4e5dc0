import { useState } from "react";
import { useMutation, useQuery } from "urql";
import { useToast } from "../../components/Toasts.tsx";
import { TriggerPicker } from "../../components/TriggerPicker.tsx";
import { describeError } from "../../errors.ts";
import { graphql } from "../../generated/gql.ts";
import type { TriggerRefInput } from "../../generated/graphql.ts";
import { useConnectorCatalog } from "../useConnectorCatalog.ts";
import { EventLogQuery } from "./eventLog.ts";

const SendTestEventMutation = graphql(`
  mutation ConsoleSendTestEvent($deploymentId: ID!, $trigger: TriggerRefInput!) {
    sendTestEvent(deploymentId: $deploymentId, trigger: $trigger) { id }
  }
`);

/** A trigger's sample payload sent through the real pipeline: one button per listed trigger, or any trigger picked. */
export function SendTestEvent({ deploymentId, onSent }: { deploymentId: string; onSent(eventId: string): void }) {
  const catalog = useConnectorCatalog();
  const [{ data }] = useQuery({ query: EventLogQuery, variables: { id: deploymentId, first: 1 } });
  const listed = data?.deployment?.forwardingSettings?.triggers ?? [];
  const [pick, setPick] = useState<TriggerRefInput>({ connector: "", trigger: "" });
  const [sending, send] = useMutation(SendTestEventMutation);
  const toast = useToast();
  const submit = async (ref: TriggerRefInput) => {
    // Only the two input fields: a ref read from a query result also carries __typename.
    const result = await send({ deploymentId, trigger: { connector: ref.connector, trigger: ref.trigger } });
    if (result.error) return toast.error(describeError(result.error));
    onSent(result.data!.sendTestEvent.id);
  };
  return (
    <div className="test-events">
      <p className="muted">
        The trigger's sample payload goes through the real pipeline (account “test”): stored, signed, sent and retried.
        {data && !data.deployment?.forwardingSettings && " No Forwarding URL is saved yet: it is held until you save one."}
      </p>
      {listed.length > 0 && (
        <div className="actions" role="group" aria-label="Test events for the Forwarding Trigger List">
          {listed.map((ref) => (
            <button key={`${ref.connector}.${ref.trigger}`} type="button" className="button small" disabled={sending.fetching} onClick={() => submit(ref)}>
              Send test event: {catalog.label(ref.connector, ref.trigger)}
            </button>
          ))}
        </div>
      )}
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (pick.connector && pick.trigger) void submit(pick);
        }}
      >
        <TriggerPicker connectors={catalog.connectors} connector={pick.connector} trigger={pick.trigger} onChange={setPick} />
        <button type="submit" className="button primary" disabled={sending.fetching || !pick.trigger}>
          {sending.fetching ? "Sending…" : "Send test event"}
        </button>
      </form>
    </div>
  );
}
