import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** src/ as the layout tests read it: every TypeScript file but generated code, with its text. */
export const SRC = resolve(import.meta.dirname, "../../src");

export function sourceFiles(): { path: string; text: string }[] {
  const found: { path: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (name === "generated") continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name)) found.push({ path: relative(SRC, path), text: readFileSync(path, "utf8") });
    }
  };
  walk(SRC);
  return found;
}

export interface Import {
  /** The importing file, relative to src/. */
  from: string;
  /** The imported file, relative to src/ (with its extension, as our imports are written). */
  to: string;
  /** `import type …` / `export type … from`: erased at build, no edge at run time. */
  typeOnly: boolean;
}

/** Relative imports and re-exports inside src/ (static and dynamic), read with a regex. */
export function imports(files: { path: string; text: string }[]): Import[] {
  const found: Import[] = [];
  const pattern = /(?:^|\n)\s*(import|export)(\s+type)?\b[^"'`;]*?\bfrom\s+["'](\.{1,2}\/[^"']+)["']|\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;
  for (const file of files) {
    for (const match of file.text.matchAll(pattern)) {
      const spec = match[3] ?? match[4];
      const target = relative(SRC, resolve(SRC, dirname(file.path), spec));
      if (target.startsWith("..")) continue;
      found.push({ from: file.path, to: target, typeOnly: Boolean(match[2]) });
    }
  }
  return found;
}

/** A file's capability: its first folder under src/, or the file itself for top-level files (app.ts → "app"). */
export const capabilityOf = (path: string) => (path.includes("/") ? path.slice(0, path.indexOf("/")) : path.replace(/\.tsx?$/, ""));
