/**
 * Twilio has no webhook subscription to create: each phone number carries the URLs Twilio calls
 * (`SmsUrl` for incoming messages, `StatusCallback` for the status of its calls). Switchyard lists
 * the account's numbers (`GET …/IncomingPhoneNumbers.json`) and points each at the connection's
 * own URL (`POST …/IncomingPhoneNumbers/{Sid}.json`, form-encoded), keeping what was there; on
 * delete it puts back what it replaced, on the numbers that still point at it.
 * https://www.twilio.com/docs/phone-numbers/api/incomingphonenumber-resource
 */
import type { SubscriptionHookContext, SubscriptionHooks } from "../../subscription.ts";

interface PhoneNumber {
  sid: string;
  sms_url: string | null;
  status_callback: string | null;
}

/** Which property of a number each provider event names, and the method property beside it. */
const PROPERTIES = { SmsUrl: { read: "sms_url", method: "SmsMethod" }, StatusCallback: { read: "status_callback", method: "StatusCallbackMethod" } } as const;
type Property = keyof typeof PROPERTIES;

const accountPath = (ctx: SubscriptionHookContext) => `/2010-04-01/Accounts/${encodeURIComponent(String(ctx.vars.account_sid))}`;

async function numbers(ctx: SubscriptionHookContext): Promise<PhoneNumber[]> {
  const all: PhoneNumber[] = [];
  let path: string | null = `${accountPath(ctx)}/IncomingPhoneNumbers.json?PageSize=1000`;
  // Twilio pages with next_page_uri (a path under the API base); bounded so a loop cannot run away.
  for (let page = 0; path && page < 20; page++) {
    const answer: { incoming_phone_numbers?: PhoneNumber[]; next_page_uri?: string | null } = await ctx.request("GET", path);
    all.push(...(answer.incoming_phone_numbers ?? []));
    path = answer.next_page_uri ?? null;
  }
  return all;
}

/** The URL a property is set to: the connection's own, naming the event (the whole URL is signed). */
const urlFor = (ctx: SubscriptionHookContext, property: Property) => `${ctx.vars.subscriptionUrl}&event=${property}`;

/** What the subscription keeps to put back: number sid → property → the URL it replaced. */
function restored(ctx: SubscriptionHookContext): Record<string, Partial<Record<Property, string>>> {
  try {
    const value = JSON.parse(String(ctx.vars.providerResourceId ?? "{}")) as unknown;
    return value && typeof value === "object" ? (value as Record<string, Partial<Record<Property, string>>>) : {};
  } catch {
    return {};
  }
}

export const twilioNumbers: SubscriptionHooks = {
  async create(ctx) {
    const events = [ctx.vars.events].flat().filter((e): e is Property => e in PROPERTIES);
    // Made again (the listed triggers changed): what the user had is what the last create kept.
    const kept = restored(ctx);
    const previous: Record<string, Partial<Record<Property, string>>> = {};
    for (const number of await numbers(ctx)) {
      const form: Record<string, string> = {};
      for (const property of events) {
        const current = number[PROPERTIES[property].read] ?? "";
        // A URL of another Switchyard subscription of this connection is not the user's to restore.
        (previous[number.sid] ??= {})[property] = current.startsWith(String(ctx.vars.notificationUrl)) ? (kept[number.sid]?.[property] ?? "") : current;
        form[property] = urlFor(ctx, property);
        form[PROPERTIES[property].method] = "POST";
      }
      if (Object.keys(form).length > 0) await ctx.request("POST", `${accountPath(ctx)}/IncomingPhoneNumbers/${encodeURIComponent(number.sid)}.json`, form);
    }
    return { providerId: String(ctx.vars.account_sid), providerResourceId: JSON.stringify(previous) };
  },

  async delete(ctx) {
    const previous = restored(ctx);
    for (const number of await numbers(ctx)) {
      const form: Record<string, string> = {};
      for (const property of Object.keys(PROPERTIES) as Property[]) {
        // Only where it still points at this subscription: a URL the user set since stays.
        if ((number[PROPERTIES[property].read] ?? "").startsWith(String(ctx.vars.subscriptionUrl))) form[property] = previous[number.sid]?.[property] ?? "";
      }
      if (Object.keys(form).length > 0) await ctx.request("POST", `${accountPath(ctx)}/IncomingPhoneNumbers/${encodeURIComponent(number.sid)}.json`, form);
    }
  },
};
