import { readFileSync } from "node:fs";
import semver from "semver";
import { expect, test } from "vitest";

/**
 * `npm install` warns "Unsupported engine" for every installed package whose `engines.node` the
 * running Node does not satisfy. The lockfile records each package's `engines`, so this checks
 * what a user would see without installing: every package must accept the oldest Node our own
 * `engines` admits and the Node running the suite, or the range we claim is not honest.
 */
test("every locked package supports the Node versions package.json's engines names", () => {
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { engines: { node: string } };
  const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as { packages: Record<string, { engines?: { node?: string } | string[] }> };
  const oldest = semver.minVersion(pkg.engines.node)!.version;
  const unsupported: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (!path || !range) continue;
    for (const node of [oldest, process.versions.node]) {
      if (semver.satisfies(node, pkg.engines.node) && !semver.satisfies(node, range, { includePrerelease: true })) {
        unsupported.push(`${path.replace(/^.*node_modules\//, "")} needs node ${range} (not ${node})`);
      }
    }
  }
  expect(unsupported, "Pin a version that supports these Node versions with package.json `overrides`, or raise `engines`").toEqual([]);
});
