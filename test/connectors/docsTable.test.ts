import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { withConnectorTable } from "../../scripts/connectorTable.ts";

test("docs/connectors.md lists every connector as the registry declares it (run `npm run docs:connectors`)", () => {
  const doc = readFileSync(new URL("../../docs/connectors.md", import.meta.url), "utf8");
  expect(doc, "the generated table is stale: run `npm run docs:connectors`").toBe(withConnectorTable(doc));
});

test("each connector's 'Set up at the provider' section names what to register, from its declaration", async () => {
  const connectors = (await import("../../src/connectors/registry.ts")).allConnectors();
  const doc = readFileSync(new URL("../../docs/connectors.md", import.meta.url), "utf8");
  for (const c of connectors.filter((c) => c.authMode !== "NONE")) {
    const start = doc.indexOf(`#### \`${c.name}\` — `);
    expect(start, `${c.name} has a setup section`).toBeGreaterThan(0);
    const section = doc.slice(start, doc.indexOf("\n####", start + 1) === -1 ? undefined : doc.indexOf("\n####", start + 1));
    const d = c.declaration;
    if (d.oauth) {
      expect(section).toContain("`{publicUrl}/oauth/callback`");
      for (const scope of d.oauth.scopes) expect(section).toContain(`\`${scope}\``);
    }
    for (const field of d.credentials?.fields ?? []) expect(section).toContain(`\`${field.name}\``);
    for (const param of d.params ?? []) expect(section).toContain(`params[${param.name}]`);
    if (c.declaration.polling) expect(section).toContain("Polling");
  }
});
