import type { PollingHealthView } from "../../connections/connection.ts";
import { builder } from "../builder.ts";

/**
 * A connection's polling health (src/polling/health.ts), as REST's `polling` shows it: read for the
 * connections a query selects it on, null when nothing of the connection is polled.
 */
const PollingHealth = builder.objectRef<PollingHealthView>("PollingHealth").implement({
  description: "How a connection's polls have gone lately.",
  fields: (t) => ({
    lastPolledAt: t.field({ type: "DateTime", nullable: true, description: "The last poll attempt.", resolve: (h) => (h.lastPolledAt ? new Date(h.lastPolledAt) : null) }),
    lastSucceededAt: t.field({ type: "DateTime", nullable: true, description: "The last poll that succeeded.", resolve: (h) => (h.lastSucceededAt ? new Date(h.lastSucceededAt) : null) }),
    lastError: t.exposeString("lastError", { nullable: true, description: "Why the last poll failed; null once one succeeds." }),
    consecutiveFailures: t.exposeInt("consecutiveFailures", { description: "Polls failed in a row (0 after a success)." }),
  }),
});

builder.prismaObjectFields("ConnectedAccount", (t) => ({
  polling: t.field({
    type: PollingHealth,
    nullable: true,
    description:
      "Polling health of a connection with a listed polled trigger; null when nothing of it is polled. switchyard.polling_failed is emitted when its polls have failed for POLLING_FAILED_AFTER.",
    select: { id: true },
    resolve: async (account, _args, ctx) => (await ctx.pollingHealth([account.id])).get(account.id) ?? null,
  }),
}));
