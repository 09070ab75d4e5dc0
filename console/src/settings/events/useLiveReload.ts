import { useMemo, useState } from "react";
import { useSubscription } from "urql";
import { graphql } from "../../generated/gql.ts";

const ForwardedEventsSubscription = graphql(`
  subscription ConsoleForwardedEvents($deploymentId: ID!, $after: ID) {
    forwardedEvents(deploymentId: $deploymentId, after: $after) { id }
  }
`);

const DeliveryUpdatesSubscription = graphql(`
  subscription ConsoleDeliveryUpdates($deploymentId: ID!) {
    deliveryUpdates(deploymentId: $deploymentId) { id eventId status attempts }
  }
`);

/**
 * Live: a new event or any delivery change (forwardedEvents, deliveryUpdates over graphql-ws)
 * bumps `version`, and the pages shown reload. Bursts are coalesced into one reload; `bump` is also
 * what the section's own actions call after a change.
 */
export function useLiveReload(deploymentId: string) {
  const [version, setVersion] = useState(0);
  const bump = useMemo(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    return () => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        setVersion((v) => v + 1);
      }, 300);
    };
  }, []);
  const [live] = useSubscription({ query: ForwardedEventsSubscription, variables: { deploymentId } }, (_prev: number | undefined, _result) => (bump(), Date.now()));
  const [updates] = useSubscription({ query: DeliveryUpdatesSubscription, variables: { deploymentId } }, (_prev: number | undefined, _result) => (bump(), Date.now()));
  return { version, bump, error: live.error ?? updates.error };
}
