/**
 * A provider's oddity is a declared field the core reads, never a branch on its name: a newcomer
 * adding a provider that behaves like Notion declares it, and changes nothing outside its folder.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import jira from "../../src/connectors/providers/jira/index.ts";
import { connectorNames, loadConnectors } from "../../src/connectors/registry.ts";

const src = fileURLToPath(new URL("../../src/", import.meta.url));
const request = (body: unknown) => ({ headers: {}, rawBody: Buffer.from(JSON.stringify(body)), method: "POST" });

describe("a provider that hands over a verification token at subscription", () => {
  it("declares it, under its own field name, and any connector so declared captures it", () => {
    const [acme] = loadConnectors([{ ...jira, name: "acme", webhook: { ...jira.webhook!, verificationToken: { field: "hook_token" } } }]);
    expect(acme.inbound.sendsVerificationToken).toBe(true);
    expect(acme.inbound.verificationToken(request({ hook_token: "tok_123" }))).toBe("tok_123");
    // An event is no hand-off, nor is a body naming another field.
    expect(acme.inbound.verificationToken(request({ hook_token: "tok_123", type: "issue" }))).toBeUndefined();
    expect(acme.inbound.verificationToken(request({ verification_token: "tok_123" }))).toBeUndefined();
  });

  it("is nothing for a connector that declares none", () => {
    const [plain] = loadConnectors([jira]);
    expect(plain.inbound.sendsVerificationToken).toBe(false);
    expect(plain.inbound.verificationToken(request({ verification_token: "tok_123" }))).toBeUndefined();
  });
});

describe("the core", () => {
  it("never compares anything with a connector's name (or a name derived from it) outside the providers' folders", () => {
    const files = (readdirSync(src, { recursive: true }) as string[])
      .filter((file) => file.endsWith(".ts"))
      .filter((file) => !file.startsWith("connectors/providers/") && !file.startsWith("connectors/schemes/") && !file.startsWith("generated/"));
    const names = connectorNames.join("|");
    const branch = new RegExp(`(===|!==|case)\\s*["'\`](${names})(_[a-z_]+)?["'\`]|["'\`](${names})(_[a-z_]+)?["'\`]\\s*(===|!==)`);
    const found = files.flatMap((file) =>
      readFileSync(`${src}${file}`, "utf8")
        .split("\n")
        .map((line, index) => ({ where: `src/${file}:${index + 1}`, line: line.trim() }))
        .filter(({ line }) => branch.test(line)),
    );
    expect(found).toEqual([]);
  });
});
