import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { blockedAddressReason } from "../../src/net/ssrf.ts";
import { DeploymentDeliveries, SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

let production: TestApp;
let receiver: Receiver;
let ada: Operator;

beforeAll(async () => {
  receiver = await startReceiver();
  production = await startTestApp({ NODE_ENV: "production", DELIVERY_RETRY_SCHEDULE: "100ms" }, { worker: true });
  ada = await createOperator(production, "Ada");
});
afterAll(async () => {
  await production.close();
  await receiver.close();
});

const save = (app: TestApp, operator: Operator, forwardingUrl: string) =>
  app.gql(SaveForwardingSettings, { deploymentId: operator.deploymentId, input: { forwardingUrl, triggers: [] } }, { token: operator.token });

describe("in production, forwarding URLs that reach internal addresses are refused", () => {
  test.each([
    ["http://127.0.0.1/hook", "loopback"],
    ["http://127.1.2.3:8080/hook", "loopback"],
    ["http://localhost:4000/hook", "loopback (by name)"],
    ["http://[::1]/hook", "IPv6 loopback"],
    ["http://10.0.0.5/hook", "private 10/8"],
    ["http://172.16.3.4/hook", "private 172.16/12"],
    ["http://192.168.1.10/hook", "private 192.168/16"],
    ["http://169.254.169.254/latest/meta-data/", "cloud metadata"],
    ["http://169.254.10.10/", "link-local"],
    ["http://[fe80::1]/", "IPv6 link-local"],
    ["http://100.64.0.1/", "CGNAT"],
    ["http://[fc00::1]/", "unique-local"],
    ["http://[fd00:ec2::254]/", "AWS IPv6 metadata"],
    ["http://[::ffff:127.0.0.1]/", "IPv4-mapped IPv6"],
    ["http://[::ffff:a00:1]/", "IPv4-mapped IPv6 (hex)"],
    ["http://[64:ff9b::a9fe:a9fe]/", "NAT64 of the metadata address"],
    ["http://[64:ff9b:1::a00:1]/", "local-use NAT64 (RFC 8215) of 10.0.0.1"],
    ["http://[::127.0.0.1]:8080/", "IPv4-compatible loopback (dotted)"],
    ["http://[::7f00:1]/", "IPv4-compatible loopback (hex)"],
    ["http://[::a9fe:a9fe]/", "IPv4-compatible metadata address"],
    ["http://[::a00:1]/", "IPv4-compatible 10.0.0.1"],
    ["http://[::8.8.8.8]/", "IPv4-compatible, even of a public address"],
    ["http://[::ffff:0:7f00:1]/", "IPv4-translated (RFC 6145)"],
    ["http://[2002:7f00:1::]/", "6to4 of loopback"],
    ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "Teredo"],
    ["http://0.0.0.0/", "unspecified"],
    ["http://2130706433/", "loopback as a decimal integer"],
    ["http://0x7f.1/", "loopback in hex shorthand"],
    ["http://224.0.0.1/", "multicast"],
  ])("%s (%s) ⇒ BAD_USER_INPUT on forwardingUrl", async (url) => {
    const result = await save(production, ada, url);
    expect(errorCode(result)).toBe("BAD_USER_INPUT");
    // Only that it is refused: what the name resolves to, and what kind of address that is, is the service's own business.
    expect(result.errors?.[0]?.extensions?.fields).toEqual([{ field: "forwardingUrl", message: "refused: private address" }]);
    expect(JSON.stringify(result)).not.toMatch(/127\.0\.0\.1|loopback|::1|resolves/);
  });

  test("public addresses are accepted", async () => {
    for (const url of ["https://93.184.216.34/hooks", "http://[2606:4700:4700::1111]:8443/in"]) {
      expect(ok(await save(production, ada, url)).saveForwardingSettings.forwardingUrl).toBe(new URL(url).toString());
    }
  });

  test("checked again when connecting: a stored URL that now resolves inside is not dialled", async () => {
    const port = new URL(receiver.url).port;
    for (const url of [`http://localhost:${port}/rebound`, `http://127.0.0.1:${port}/rebound`, `http://[::7f00:1]:${port}/rebound`]) {
      ok(await save(production, ada, "https://93.184.216.34/hooks"));
      // The name's DNS answer changed since it was saved (rebinding): stand in for that by pointing the stored row inside.
      await production.database.sql.query("update forwarding_settings set forwarding_url = $1 where deployment_id = $2", [url, ada.deploymentId]);
      const { sendTestEvent } = ok(await production.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { token: ada.token }));
      let delivery;
      for (;;) {
        const { deployment } = ok(await production.gql(DeploymentDeliveries, { id: ada.deploymentId, limit: 100 }, { token: ada.token }));
        delivery = deployment!.deliveries.find((d) => d.event.id === sendTestEvent.id);
        if (delivery?.status === "FAILED") break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(delivery.lastStatusCode).toBeNull();
      expect(delivery.attemptLog[0].error).toBe("refused: private address");
    }
    expect(receiver.requests.filter((r) => r.path === "/rebound")).toEqual([]);
  });
});

describe("outside production, or with FORWARDING_ALLOW_PRIVATE=true, private targets are fine", () => {
  test("FORWARDING_ALLOW_PRIVATE=true in production accepts and delivers to localhost", async () => {
    const app = await startTestApp({ NODE_ENV: "production", FORWARDING_ALLOW_PRIVATE: "true" }, { worker: true });
    try {
      const operator = await createOperator(app, "Ada");
      ok(await save(app, operator, `${receiver.url.replace("127.0.0.1", "localhost")}/allowed`));
      const { sendTestEvent } = ok(await app.gql(SendTestEvent, { deploymentId: operator.deploymentId, trigger: { connector: "jira", trigger: "issue_created" } }, { token: operator.token }));
      await receiver.waitFor(() => receiver.byEventId(sendTestEvent.id).length === 1);
    } finally {
      await app.close();
    }
  });
});

describe("the address table", () => {
  test.each([
    ["8.8.8.8", undefined],
    ["93.184.216.34", undefined],
    ["2606:4700:4700::1111", undefined],
    ["127.0.0.1", "loopback address"],
    ["10.1.1.1", "private address"],
    ["100.100.100.200", "cloud metadata endpoint"],
    ["169.254.169.254", "cloud metadata endpoint"],
    ["fd00:ec2::254", "cloud metadata endpoint"],
    ["::ffff:8.8.8.8", "IPv4-mapped IPv6 address"],
    ["2002:a00:1::", "IPv6 6to4 address (embeds IPv4)"],
    ["2001::1", "IPv6 teredo address (embeds IPv4)"],
    ["198.18.0.1", "reserved address"],
    ["::", "unspecified address"],
    ["::1", "loopback address"],
    ["::7f00:1", "IPv4-compatible IPv6 address (embeds IPv4)"],
    ["::a9fe:a9fe", "IPv4-compatible IPv6 address (embeds IPv4)"],
    ["::a00:1", "IPv4-compatible IPv6 address (embeds IPv4)"],
    ["::808:808", "IPv4-compatible IPv6 address (embeds IPv4)"],
    ["64:ff9b:1::a00:1", "IPv6 rfc6052 address (embeds IPv4)"],
    ["::ffff:0:7f00:1", "IPv6 rfc6145 address (embeds IPv4)"],
  ])("%s ⇒ %s", (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
  });
});
