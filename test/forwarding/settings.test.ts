import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { fakeClock } from "../helpers/clock.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { PauseForwarding, ResumeForwarding } from "../helpers/operations.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const AddForwardingTrigger = graphql(`
  mutation AddForwardingTrigger($deploymentId: ID!, $trigger: TriggerRefInput!) {
    addForwardingTrigger(deploymentId: $deploymentId, trigger: $trigger) { forwardingUrl triggers { connector trigger } }
  }
`);

const RemoveForwardingTrigger = graphql(`
  mutation RemoveForwardingTrigger($deploymentId: ID!, $trigger: TriggerRefInput!) {
    removeForwardingTrigger(deploymentId: $deploymentId, trigger: $trigger) { forwardingUrl triggers { connector trigger } }
  }
`);

const ForwardingSettingsQuery = graphql(`
  query ForwardingSettingsOf($id: ID!) {
    deployment(id: $id) { id forwardingSettings { forwardingUrl headerKey headerValueSet triggers { connector trigger } } }
  }
`);

let app: TestApp;
let ada: Operator;
let bob: Operator;

beforeAll(async () => {
  app = await startTestApp();
  ada = await createOperator(app, "Ada");
  bob = await createOperator(app, "Bob");
});
afterAll(() => app.close());

const issueOpened = { connector: "github", trigger: "issue_opened" };
const emailSent = { connector: "gmail", trigger: "email_sent" };

function fieldsOf(result: { errors?: { extensions?: Record<string, unknown> }[] }) {
  return ((result.errors?.[0]?.extensions?.fields ?? []) as { field: string }[]).map((f) => f.field);
}

describe("forwarding settings", () => {
  test("a deployment starts without settings, then saves URL, header and triggers in one go", async () => {
    const before = ok(await app.gql(ForwardingSettingsQuery, { id: ada.productionDeploymentId }, { token: ada.token }));
    expect(before.deployment?.forwardingSettings).toBeNull();

    const { saveForwardingSettings } = ok(
      await app.gql(
        SaveForwardingSettings,
        {
          deploymentId: ada.productionDeploymentId,
          input: { forwardingUrl: "https://hooks.example.com/switchyard", headerKey: "X-Api-Token", headerValue: "s3cret-value", triggers: [issueOpened, emailSent] },
        },
        { token: ada.token },
      ),
    );
    expect(saveForwardingSettings).toMatchObject({
      forwardingUrl: "https://hooks.example.com/switchyard",
      headerKey: "X-Api-Token",
      headerValueSet: true,
    });
    expect(saveForwardingSettings.triggers).toEqual([issueOpened, emailSent]); // sorted by connector, then trigger
    // The value never comes back, in any shape.
    expect(JSON.stringify(saveForwardingSettings)).not.toContain("s3cret-value");
  });

  test("saving replaces the whole trigger list; the API key of the deployment may save too", async () => {
    const { saveForwardingSettings } = ok(
      await app.gql(
        SaveForwardingSettings,
        { deploymentId: ada.deploymentId, input: { forwardingUrl: "http://localhost:9000/hooks", triggers: [issueOpened, emailSent] } },
        { apiKey: ada.apiKey },
      ),
    );
    expect(saveForwardingSettings.triggers).toHaveLength(2);
    const replaced = ok(
      await app.gql(
        SaveForwardingSettings,
        { deploymentId: ada.deploymentId, input: { forwardingUrl: "http://localhost:9000/hooks", triggers: [{ connector: "slack", trigger: "message_posted" }] } },
        { apiKey: ada.apiKey },
      ),
    );
    expect(replaced.saveForwardingSettings.triggers).toEqual([{ connector: "slack", trigger: "message_posted" }]);
    expect(replaced.saveForwardingSettings.headerKey).toBeNull();
    expect(replaced.saveForwardingSettings.headerValueSet).toBe(false);
  });

  test("re-saving with the header key but without the (masked) value keeps the stored value", async () => {
    const deploymentId = ada.productionDeploymentId;
    const resaved = ok(
      await app.gql(
        SaveForwardingSettings,
        { deploymentId, input: { forwardingUrl: "https://hooks.example.com/v2", headerKey: "X-Api-Token", triggers: [issueOpened] } },
        { token: ada.token },
      ),
    );
    expect(resaved.saveForwardingSettings).toMatchObject({ forwardingUrl: "https://hooks.example.com/v2", headerKey: "X-Api-Token", headerValueSet: true });
    // Saving with neither key nor value removes the header.
    const cleared = ok(
      await app.gql(SaveForwardingSettings, { deploymentId, input: { forwardingUrl: "https://hooks.example.com/v2", triggers: [issueOpened] } }, { token: ada.token }),
    );
    expect(cleared.saveForwardingSettings).toMatchObject({ headerKey: null, headerValueSet: false });
  });

  test("every bad field is named in BAD_USER_INPUT", async () => {
    const save = (input: Record<string, unknown>) =>
      app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: "https://ok.example.com", triggers: [], ...input } as never }, { token: ada.token });
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ forwardingUrl: "not a url" }, ["forwardingUrl"]],
      [{ forwardingUrl: "ftp://files.example.com/in" }, ["forwardingUrl"]],
      [{ forwardingUrl: "javascript:alert(1)" }, ["forwardingUrl"]],
      [{ forwardingUrl: "https://user:pw@example.com/" }, ["forwardingUrl"]],
      [{ headerKey: "Bad Header", headerValue: "x" }, ["headerKey"]],
      [{ headerKey: "X-Token:", headerValue: "x" }, ["headerKey"]],
      [{ headerKey: "Content-Type", headerValue: "text/plain" }, ["headerKey"]],
      [{ headerKey: "content-length", headerValue: "1" }, ["headerKey"]],
      [{ headerKey: "Host", headerValue: "evil.example.com" }, ["headerKey"]],
      [{ headerKey: "User-Agent", headerValue: "x" }, ["headerKey"]],
      [{ headerKey: "Webhook-Signature", headerValue: "v1,forged" }, ["headerKey"]],
      [{ headerKey: "X-Token", headerValue: "a\r\nX-Injected: 1" }, ["headerValue"]],
      [{ headerKey: "X-Token", headerValue: "line\nbreak" }, ["headerValue"]],
      [{ headerValue: "value without a key" }, ["headerKey"]],
      [{ headerKey: "X-New-Token" }, ["headerValue"]], // nothing stored to keep
      [{ triggers: [{ connector: "nope", trigger: "x" }] }, ["triggers.0"]],
      [{ triggers: [issueOpened, { connector: "github", trigger: "repo_starred" }] }, ["triggers.1"]],
      [{ triggers: [issueOpened, issueOpened] }, ["triggers.1"]],
      [{ forwardingUrl: "gopher://x", headerKey: "Host", headerValue: "y", triggers: [{ connector: "gmail", trigger: "nope" }] }, ["forwardingUrl", "headerKey", "triggers.0"]],
    ];
    for (const [input, fields] of cases) {
      const result = await save(input);
      expect(errorCode(result), JSON.stringify(input)).toBe("BAD_USER_INPUT");
      expect(fieldsOf(result), JSON.stringify(input)).toEqual(fields);
    }
    // Nothing of the refused saves was stored.
    const { deployment } = ok(await app.gql(ForwardingSettingsQuery, { id: ada.deploymentId }, { token: ada.token }));
    expect(deployment?.forwardingSettings?.forwardingUrl).toBe("http://localhost:9000/hooks");
  });

  test("triggers are added and removed one at a time; duplicates and unknown ones are refused", async () => {
    const deploymentId = ada.deploymentId;
    const added = ok(await app.gql(AddForwardingTrigger, { deploymentId, trigger: issueOpened }, { token: ada.token }));
    expect(added.addForwardingTrigger.triggers).toContainEqual(issueOpened);

    const again = await app.gql(AddForwardingTrigger, { deploymentId, trigger: issueOpened }, { token: ada.token });
    expect(errorCode(again)).toBe("BAD_USER_INPUT");
    expect(fieldsOf(again)).toEqual(["trigger"]);
    expect(errorCode(await app.gql(AddForwardingTrigger, { deploymentId, trigger: { connector: "github", trigger: "nope" } }, { token: ada.token }))).toBe("BAD_USER_INPUT");

    const removed = ok(await app.gql(RemoveForwardingTrigger, { deploymentId, trigger: issueOpened }, { token: ada.token }));
    expect(removed.removeForwardingTrigger.triggers).not.toContainEqual(issueOpened);
    expect(errorCode(await app.gql(RemoveForwardingTrigger, { deploymentId, trigger: issueOpened }, { token: ada.token }))).toBe("BAD_USER_INPUT");
  });

  test("adding a trigger before any forwarding URL is saved asks for the URL first", async () => {
    const carol = await createOperator(app, "Carol");
    const result = await app.gql(AddForwardingTrigger, { deploymentId: carol.deploymentId, trigger: issueOpened }, { token: carol.token });
    expect(errorCode(result)).toBe("BAD_USER_INPUT");
    expect(result.errors?.[0]?.message).toMatch(/forwarding URL first/);
  });
});

describe("forwarding settings tenancy", () => {
  const input = { forwardingUrl: "https://attacker.example.com", triggers: [issueOpened] };

  test("another organization's user, another deployment's API key and nobody are refused", async () => {
    for (const [caller, code] of [
      [{ token: bob.token }, "FORBIDDEN"],
      [{ apiKey: bob.apiKey }, "FORBIDDEN"],
      [{}, "UNAUTHENTICATED"],
    ] as const) {
      expect(errorCode(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input }, caller))).toBe(code);
      expect(errorCode(await app.gql(AddForwardingTrigger, { deploymentId: ada.deploymentId, trigger: emailSent }, caller))).toBe(code);
      expect(errorCode(await app.gql(RemoveForwardingTrigger, { deploymentId: ada.deploymentId, trigger: emailSent }, caller))).toBe(code);
      expect(errorCode(await app.gql(ForwardingSettingsQuery, { id: ada.deploymentId }, caller))).toBe(code);
    }
    // Ada's own development key cannot touch her production deployment either.
    expect(errorCode(await app.gql(SaveForwardingSettings, { deploymentId: ada.productionDeploymentId, input }, { apiKey: ada.apiKey }))).toBe("FORBIDDEN");
    const { deployment } = ok(await app.gql(ForwardingSettingsQuery, { id: ada.deploymentId }, { token: ada.token }));
    expect(deployment?.forwardingSettings?.forwardingUrl).toBe("http://localhost:9000/hooks");
  });
});

describe("bounded and well-formed input", () => {
  const saveAs = (input: Record<string, unknown>) =>
    app.gql(SaveForwardingSettings, { deploymentId: bob.deploymentId, input: { forwardingUrl: "https://hooks.example.com/in", triggers: [], ...input } as never }, { token: bob.token });

  test("a header key must be an RFC 9110 token and the value an RFC 9110 field-value: control characters are refused at save time", async () => {
    for (const headerValue of ["abc\u0001def", "abc\u007f", "line\r\nbreak", "tab-only\t", "\u20ac uro", "\u202Eevil"]) {
      const result = await saveAs({ headerKey: "X-Token", headerValue });
      expect(errorCode(result), JSON.stringify(headerValue)).toBe("BAD_USER_INPUT");
      expect(fieldsOf(result), JSON.stringify(headerValue)).toEqual(["headerValue"]);
    }
    for (const headerKey of ["X Token", "X-Tok\u0001en", "X:Token", "Ä-Token"]) {
      const result = await saveAs({ headerKey, headerValue: "v" });
      expect(fieldsOf(result), JSON.stringify(headerKey)).toEqual(["headerKey"]);
    }
    // Visible ASCII with inner spaces and tabs, and Latin-1 obs-text, are valid field values.
    for (const headerValue of ["Bearer abc.def-123", "a\tb c", "caf\u00e9"]) {
      expect(ok(await saveAs({ headerKey: "X-Token", headerValue })).saveForwardingSettings.headerValueSet, headerValue).toBe(true);
    }
  });

  test("at most 1,000 triggers per save, and at most 50 problems reported", async () => {
    const many = Array.from({ length: 20_000 }, (_, i) => ({ connector: "github", trigger: `nope_${i}` }));
    const response = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${bob.token}` },
      body: JSON.stringify({
        query: "mutation($d: ID!, $i: ForwardingSettingsInput!) { saveForwardingSettings(deploymentId: $d, input: $i) { forwardingUrl } }",
        variables: { d: bob.deploymentId, i: { forwardingUrl: "https://hooks.example.com/in", triggers: many } },
      }),
    });
    const text = await response.text();
    expect(text.length).toBeLessThan(10_000);
    const result = JSON.parse(text);
    expect(errorCode(result)).toBe("BAD_USER_INPUT");
    expect(result.errors[0].extensions.fields).toEqual([{ field: "triggers", message: "must list at most 1000 triggers (20000 given)" }]);

    const invalid = Array.from({ length: 1000 }, (_, i) => ({ connector: i % 2 ? "github" : "x".repeat(500), trigger: `nope_${i}` }));
    const capped = await saveAs({ triggers: invalid });
    expect(errorCode(capped)).toBe("BAD_USER_INPUT");
    expect(fieldsOf(capped)).toHaveLength(50);
    expect(capped.errors![0].message).toMatch(/and 950 more problems$/);
    expect(JSON.stringify(capped).length).toBeLessThan(40_000);
  });
});


describe("the settings' times are the app's clock", () => {
  const SettingsTimes = graphql(`
    query ForwardingSettingsTimes($id: ID!) { deployment(id: $id) { id forwardingSettings { status updatedAt statusChangedAt } } }
  `);
  const clock = fakeClock(new Date("2031-05-06T07:08:09.000Z"));
  let timed: TestApp;
  let carol: Operator;
  beforeAll(async () => {
    timed = await startTestApp({}, { clock });
    carol = await createOperator(timed, "Carol");
  });
  afterAll(() => timed?.close());

  const times = async () => ok(await timed.gql(SettingsTimes, { id: carol.productionDeploymentId }, { token: carol.token })).deployment?.forwardingSettings;

  test("saving, the trigger list, pausing and resuming are dated by it, not by the database's or the process's time", async () => {
    const deploymentId = carol.productionDeploymentId;
    const input = { forwardingUrl: "https://hooks.example.com/carol", triggers: [issueOpened] };
    ok(await timed.gql(SaveForwardingSettings, { deploymentId, input }, { token: carol.token }));
    expect(await times()).toEqual({ status: "ACTIVE", updatedAt: "2031-05-06T07:08:09.000Z", statusChangedAt: null });

    clock.advance(60_000);
    ok(await timed.gql(AddForwardingTrigger, { deploymentId, trigger: emailSent }, { token: carol.token }));
    expect((await times())?.updatedAt).toBe("2031-05-06T07:09:09.000Z");
    clock.advance(60_000);
    ok(await timed.gql(RemoveForwardingTrigger, { deploymentId, trigger: emailSent }, { token: carol.token }));
    expect((await times())?.updatedAt).toBe("2031-05-06T07:10:09.000Z");

    clock.advance(60_000);
    const { pauseForwarding } = ok(await timed.gql(PauseForwarding, { deploymentId }, { token: carol.token }));
    expect(pauseForwarding).toMatchObject({ status: "PAUSED", statusChangedAt: "2031-05-06T07:11:09.000Z" });
    expect((await times())?.updatedAt).toBe("2031-05-06T07:11:09.000Z");

    clock.advance(60_000);
    ok(await timed.gql(ResumeForwarding, { deploymentId }, { token: carol.token }));
    expect(await times()).toEqual({ status: "ACTIVE", updatedAt: "2031-05-06T07:12:09.000Z", statusChangedAt: null });
  });
});
