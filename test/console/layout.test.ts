import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { expect, test } from "vitest";

const root = resolve(fileURLToPath(new URL("../../console/src", import.meta.url)));

/** Every .ts/.tsx file of the console's source, and the console files each one imports (type imports too). */
function importGraph(): Map<string, string[]> {
  const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((name) => /\.tsx?$/.test(name) && !name.startsWith("generated"));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true);
    const local = importedFiles.map((i) => i.fileName).filter((name) => name.startsWith("."));
    graph.set(
      file,
      local.map((name) => relative(root, resolve(dirname(join(root, file)), name))).filter((name) => files.includes(name)),
    );
  }
  return graph;
}

test("a newcomer can read the console bottom-up: no file imports one that imports it back (no import cycle)", () => {
  const graph = importGraph();
  const cycles: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "visiting") {
      cycles.push([...path.slice(path.indexOf(file)), file].join(" → "));
      return;
    }
    state.set(file, "visiting");
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    state.set(file, "done");
  };
  for (const file of [...graph.keys()].sort()) visit(file, []);
  expect(graph.size).toBeGreaterThan(10);
  expect(cycles).toEqual([]);
});
