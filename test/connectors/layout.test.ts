import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { connectorNames } from "../../src/connectors/registry.ts";

const connectorsDir = fileURLToPath(new URL("../../src/connectors/", import.meta.url));
const providersDir = `${connectorsDir}providers/`;

describe("where a newcomer finds a provider", () => {
  it("every connector in the catalog is one folder providers/<name>/ with its declaration in index.ts", () => {
    const missing = connectorNames.filter((name) => !existsSync(`${providersDir}${name}/index.ts`));
    expect(missing).toEqual([]);
  });

  it("providers/ holds only the list and the provider folders: no loose provider files beside them", () => {
    const loose = readdirSync(providersDir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name !== "index.ts")
      .map((entry) => entry.name);
    expect(loose).toEqual([]);
  });

  it("no provider's code lives outside providers/ (its shapes and events sit beside its declaration)", () => {
    const names = new Set(connectorNames);
    const strays = readdirSync(connectorsDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && names.has(entry.name))
      .map((entry) => entry.name);
    expect(strays).toEqual([]);
  });
});
