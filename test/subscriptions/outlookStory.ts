import type { FakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startFakeMicrosoftGraph, type FakeMicrosoftGraph } from "../helpers/fakeProviders/microsoftGraph.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator } from "../helpers/operators.ts";
import { startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp } from "../helpers/testApp.ts";

/**
 * How both Outlook `missed` stories start (outlookMissed, outlookCalendarMissed): the fake Graph
 * paging its delta rounds two items a page (so a round follows @odata.nextLink), an operator
 * forwarding `triggers` to a receiver, what was in the mailbox or calendar `before` the account is
 * connected, a minute, then alice connected and her subscriptions made.
 */
export async function startOutlookStory(clock: FakeClock, triggers: string[], before: (fake: FakeMicrosoftGraph) => Promise<unknown>) {
  const fake = await startFakeMicrosoftGraph({ clock, deltaPageSize: 2 });
  const receiver = await startReceiver();
  const app = await startTestApp(fake.env(), { clock, worker: true });
  const close = async () => {
    await app.close();
    await fake.close();
    await receiver.close();
  };
  try {
    const ada = await createOperator(app);
    const input = { forwardingUrl: receiver.url, triggers: triggers.map((trigger) => ({ connector: "microsoft", trigger })) };
    ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input }, { token: ada.token }));
    await before(fake);
    clock.advance(60_000);
    const accountId = (await connectAccount(app, ada, { connector: "microsoft", account: "alice", provider: fake })).id;
    await app.app.subscriptions.runOnce(true);
    return { fake, receiver, app, ada, accountId, close };
  } catch (error) {
    await close();
    throw error;
  }
}
