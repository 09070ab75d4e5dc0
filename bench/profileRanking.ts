/** What bench/cpuProfileTop.ts and bench/heapProfileTop.ts share: naming a V8 profile's frames and ranking them. */
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, resolve } from "node:path";

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber?: number;
}

/** A frame URL as a path. */
export const local = (url: string) => url.replace(/^file:\/\//, "");

const sourceMaps = new Map<string, SourceMap | null>();

/**
 * The frame where its source is: a frame of the bundled server (dist/, one long line per file) read
 * through the source map beside it, so it names its file in src/ or its package, not a chunk of dist/.
 * Other frames as they are. The map is read from dist/ as it is now: rank a profile before the next
 * `npm run build:server`, or its frames are named from another build's lines.
 */
export function sourceMapped(frame: CallFrame): CallFrame {
  const path = local(frame.url);
  if (!path.includes("/dist/")) return frame;
  let map = sourceMaps.get(path);
  if (map === undefined) {
    map = existsSync(`${path}.map`) ? new SourceMap(JSON.parse(readFileSync(`${path}.map`, "utf8"))) : null;
    sourceMaps.set(path, map);
  }
  const entry = map?.findEntry(frame.lineNumber, frame.columnNumber ?? 0);
  if (!entry || !("originalSource" in entry)) return frame;
  return { ...frame, url: resolve(dirname(path), entry.originalSource), lineNumber: entry.originalLine };
}

/** The package a frame's code is in, or its path from src/, dist/ or bench/; "(native)" without a URL. */
export function frameFile(url: string): string {
  if (!url) return "(native)";
  const path = local(url);
  return /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.replace(/^.*\/(src|dist|bench)\//, "$1/");
}

/** A frame as a row: the function, and where it is (a package's path, or from src/, dist/ or bench/). */
export function frameName({ functionName, url, lineNumber }: CallFrame): string {
  const path = local(url);
  const inPackage = /^.*node_modules\//;
  const where = url ? `${inPackage.test(path) ? path.replace(inPackage, "") : path.replace(/^.*\/(src|dist|bench)\//, "$1/")}:${lineNumber + 1}` : "";
  return `${functionName || "(anonymous)"}  ${where}`;
}

/** Prints the `top` largest of `totals`, each as its share of `whole` and as `amount` says. */
export function printRanked(title: string, totals: Map<string, number>, whole: number, top: number, amount: (value: number) => string) {
  console.log(`\n${title}`);
  for (const [name, value] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * value) / whole).toFixed(1).padStart(5)} %  ${amount(value)}  ${name}`);
  }
}
