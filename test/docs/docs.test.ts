import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { configVariables } from "../../src/config.ts";

/**
 * The README and docs/ as a newcomer reads them from a fresh clone: every link leads somewhere in
 * the repository, nothing cites files that are not in it, and the configuration table is complete.
 */

const root = resolve(new URL("../..", import.meta.url).pathname);
const markdown = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdown(path) : name.endsWith(".md") ? [path] : [];
  });
const files = [join(root, "README.md"), ...markdown(join(root, "docs"))];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = heading[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

function links(file: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  let fenced = false;
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((text, index) => {
      if (text.startsWith("```")) fenced = !fenced;
      if (fenced) return;
      for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) found.push({ target: match[1], line: index + 1 });
    });
  return found;
}

describe("README.md and docs/", () => {
  test("every link leads to a file in the repository, and every #anchor to a heading in it", () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const { target, line } of links(file)) {
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto: — the public web, not a file
        const [path, anchor] = target.split("#");
        const resolved = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
        const where = `${relative(root, file)}:${line} → ${target}`;
        if (relative(root, resolved).startsWith("..")) broken.push(`${where}: points outside the repository`);
        else if (!existsSync(resolved)) broken.push(`${where}: no such file`);
        else if (anchor && resolved.endsWith(".md") && !anchors(resolved).has(anchor)) broken.push(`${where}: no heading with the anchor #${anchor}`);
      }
    }
    expect(broken, `Fix these links:\n${broken.join("\n")}`).toEqual([]);
  });

  test("nothing cites files a clone does not have", () => {
    const cited: string[] = [];
    for (const file of files) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((text, index) => {
          if (/SPEC\.md|SPEC §|RECIPES\.md|STYLE\.md|\.\.\/shared\b/.test(text)) cited.push(`${relative(root, file)}:${index + 1}: ${text.trim()}`);
        });
    }
    expect(cited, `These lines cite files outside the repository; say it in the docs instead (e.g. docs/reference/):\n${cited.join("\n")}`).toEqual([]);
  });

  test("the README's configuration table lists exactly the variables src/config.ts reads", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const table = readme.slice(readme.indexOf("## Configuration"));
    const documented = new Set([...table.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]));
    const missing = configVariables.filter((name) => !documented.has(name));
    const stale = [...documented].filter((name) => !configVariables.includes(name));
    expect(missing, `Add a row to README.md's "## Configuration" table (| \`NAME\` | default | meaning |) for: ${missing.join(", ")}`).toEqual([]);
    expect(stale, `README.md's configuration table documents variables src/config.ts no longer reads; remove: ${stale.join(", ")}`).toEqual([]);
  });
});
