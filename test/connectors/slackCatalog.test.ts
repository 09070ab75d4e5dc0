/**
 * Slack: every Events API event type Slack's own SDK declares (@slack/types, read from its type
 * declarations) is a trigger named after it, except `message` (message_posted) and
 * `app_rate_limited` (not subscribable); and new triggers forward Slack's envelope unchanged.
 */
import { createHmac } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";

const slack = findConnector("slack")!;
const require = createRequire(import.meta.url);
const eventsDir = join(dirname(require.resolve("@slack/types/package.json")), "dist", "events");
const declared = new Set(
  readdirSync(eventsDir)
    .filter((f) => f.endsWith(".d.ts"))
    .flatMap((f) => [...readFileSync(join(eventsDir, f), "utf8").matchAll(/^\s*type: '([a-z_]+)';/gm)].map((m) => m[1])),
);

describe("Slack's event catalog", () => {
  it("has one trigger per event type @slack/types declares, named and keyed as Slack names it", () => {
    expect(declared.size).toBeGreaterThan(80);
    const byProviderEvent = new Map(slack.triggers.map((t) => [t.providerEvent, t]));
    for (const type of declared) {
      if (type === "app_rate_limited") continue;
      const trigger = byProviderEvent.get(type);
      expect(trigger, type).toBeDefined();
      if (type === "message") expect(trigger!.name).toBe("message_posted");
      else expect(trigger!.name).toBe(type);
    }
    expect(slack.triggers.length).toBe(declared.size - 1);
  });

  it("forwards a new event's envelope unchanged, routed by the event's user, deduped by event_id", () => {
    const body = JSON.stringify({
      token: "legacy",
      team_id: "T1",
      api_app_id: "A1",
      type: "event_callback",
      event_id: "Ev123",
      event_time: 1767261660,
      event: { type: "app_mention", user: "U111", text: "<@U0LAN0Z89> is it everything a river should be?", ts: "1767261660.000200", channel: "C1", event_ts: "1767261660.000200" },
      authorizations: [{ user_id: "U222" }],
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = `v0=${createHmac("sha256", "signing-secret").update(`v0:${timestamp}:${body}`).digest("hex")}`;
    const req = { headers: { "x-slack-signature": signature, "x-slack-request-timestamp": timestamp }, rawBody: Buffer.from(body) };
    expect(slack.inbound.verify(req, "signing-secret", new Date())).toEqual({ ok: true });
    const result = slack.inbound.parse(req);
    expect(result.events).toHaveLength(1);
    expect(result.events[0]).toMatchObject({ trigger: "app_mention", externalIds: ["U111", "U222"], dedupeKey: "Ev123" });
    expect(result.events[0].occurredAt?.toISOString()).toBe("2026-01-01T10:01:00.000Z");
    expect(result.events[0].data).toEqual(JSON.parse(body));
  });
});
