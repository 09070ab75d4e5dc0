/** A bad declaration stops start-up with the file and the field named, not with a crash later. */
import { describe, expect, it } from "vitest";
import { loadConnectors } from "../../src/connectors/registry.ts";
import github from "../../src/connectors/providers/github/index.ts";
import jira from "../../src/connectors/providers/jira/index.ts";
import freshdesk from "../../src/connectors/providers/freshdesk/index.ts";
import twilio from "../../src/connectors/providers/twilio/index.ts";
import { twilioSignature } from "../../src/connectors/providers/twilio/signature.ts";

const valid = { ...jira };

describe("declaration validation", () => {
  it("accepts the shipped declarations", () => {
    expect(loadConnectors([jira, github]).map((c) => c.name)).toEqual(["jira", "github"]);
  });

  it("names the file and every bad field", () => {
    const bad = {
      ...valid,
      name: "acme",
      category: "toys",
      docs: ["http://example.com/not-https"],
      oauth: { ...valid.oauth, tokenUrl: "ftp://acme.example/token" },
      webhook: { ...valid.webhook!, scheme: { type: "hmac", header: "X-Acme-Signature" } },
    };
    let message = "";
    try {
      loadConnectors([bad]);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("Invalid connector declaration in src/connectors/providers/acme/index.ts");
    for (const field of ["category", "docs.0", "oauth.tokenUrl", "webhook.scheme.header"]) expect(message).toContain(`  ${field}:`);
  });

  it("names a bad parameter of a provider's own scheme, and anything else given as one", () => {
    const own = (scheme: unknown) => () => loadConnectors([{ ...twilio, webhook: { ...twilio.webhook!, scheme } as never }]);
    expect(own({ own: twilioSignature, params: { header: "X-Twilio-Signature" } })).toThrow(/\n  webhook\.scheme\.params\.header: must be a lower-case HTTP header name/);
    expect(own({ own: twilioSignature, params: { header: "x-twilio-signature", algorithm: "md5" } })).toThrow(/\n  webhook\.scheme\.params\.algorithm: /);
    expect(own({ own: { type: "forged" } })).toThrow(/\n  webhook\.scheme\.own: must be a provider's own scheme/);
    expect(own({ type: "box" })).toThrow(/\n  webhook\.scheme\.type: /);
  });

  it("holds API_KEY and BASIC connectors to their credentials: the right style, no secret in a URL, examples that fit", () => {
    expect(loadConnectors([twilio, freshdesk]).map((c) => c.endpoints.apiUrl)).toEqual(["https://api.twilio.com", "https://{domain}.freshdesk.com"]);
    const credentials = twilio.credentials!;
    expect(() => loadConnectors([{ ...twilio, api: { auth: { style: "bearer" } } }])).toThrow(/credentials\.basic: authMode BASIC needs credentials\.basic \(not key\) and api\.auth\.style basic/);
    expect(() => loadConnectors([{ ...twilio, authMode: "API_KEY" }])).toThrow(/credentials\.key: authMode API_KEY needs credentials\.key/);
    expect(() => loadConnectors([{ ...twilio, credentials: { ...credentials, test: { ...credentials.test, path: "/check/{auth_token}" } } }])).toThrow(
      /credentials\.test\.path: must not name the secret field \{auth_token\}/,
    );
    expect(() => loadConnectors([{ ...twilio, credentials: { ...credentials, fields: [{ ...credentials.fields[0], example: "nope" }, credentials.fields[1]] } }])).toThrow(
      /credentials\.fields\.0\.example: example must match pattern/,
    );
    const { credentials: _c, ...bare } = twilio;
    expect(() => loadConnectors([bare])).toThrow(/credentials: required for authMode BASIC/);
    expect(() => loadConnectors([{ ...jira, credentials }])).toThrow(/credentials: only for authMode API_KEY or BASIC/);
  });

  it("refuses one provider event mapped to two triggers, duplicate names, and triggers without a webhook", () => {
    const twice = { ...valid, triggers: [valid.triggers![0], { ...valid.triggers![1], providerEvent: valid.triggers![0].providerEvent }] };
    expect(() => loadConnectors([twice])).toThrow(/triggers\.1\.providerEvent: "jira:issue_created" is already trigger "issue_created"/);
    expect(() => loadConnectors([valid, valid])).toThrow(/"jira" is declared twice/);
    const { webhook: _w, ...noWebhook } = valid;
    expect(() => loadConnectors([noWebhook])).toThrow(/webhook: triggers need a webhook section/);
  });

  it("takes one request shape everywhere a request is declared, and refuses what a section cannot send", () => {
    const { webhook: _w, subscription: _s, ...connectOnly } = valid;
    const bare = { ...connectOnly, triggers: [] };
    // The identity read is the shared shape: a JSON object body, an upper-case header name refused as anywhere else.
    expect(loadConnectors([{ ...bare, identity: { path: "/me", method: "POST", body: { query: "{ me { id } }" }, idPath: "data.me.id" } }])[0].declaration.identity).toMatchObject({
      method: "POST",
      query: {},
      headers: {},
      body: { query: "{ me { id } }" },
    });
    expect(() => loadConnectors([{ ...bare, identity: { path: "/me", method: "POST", body: '{"query":"{ me { id } }"}', idPath: "id" } }])).toThrow(/\n  identity\.body: /);
    expect(() => loadConnectors([{ ...bare, identity: { path: "/me", headers: { Accept: "application/json" }, idPath: "id" } }])).toThrow(/\n  identity\.headers\.Accept: /);
    // A polled list is read with GET; a subscription check with GET or POST.
    const poll = (request: object) => ({ ...valid, polling: { triggers: { [valid.triggers![0].name]: { request, id: "id", cursor: { from: "answer", paths: ["next"] } } } } });
    expect(() => loadConnectors([poll({ path: "/items", method: "POST", body: {} })])).toThrow(/polling\.triggers\.issue_created\.request\.method: a polled read is a GET without a body/);
    expect(loadConnectors([poll({ path: "/items", headers: { accept: "application/json" } })])).toHaveLength(1);
  });

  it("never declares a revocation that would put the client secret in a URL", () => {
    const revocation = { url: "https://acme.example/oauth/revoke", body: "query", clientAuth: "client_secret_post" };
    expect(() => loadConnectors([{ ...valid, oauth: { ...valid.oauth!, revocation } }])).toThrow(/cannot send the client secret in the URL/);
    expect(loadConnectors([{ ...valid, oauth: { ...valid.oauth!, revocation: { ...revocation, clientAuth: "none" } } }])[0].oauth.revocation).toMatchObject({ body: "query" });
  });

  it("refuses icons that could run script and unknown members", () => {
    expect(() => loadConnectors([{ ...valid, icon: '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>' }])).toThrow(/icon:/);
    expect(() => loadConnectors([{ ...valid, colour: "blue" }])).toThrow(/Invalid connector declaration/);
  });
});
