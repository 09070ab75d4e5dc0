/**
 * Ranks what one process ran, from `perf` samples: unlike a V8 profile (`--cpu-prof`), which samples
 * the thread's wall time, so that a system call's share includes the time the kernel gave the
 * processor to another process, `perf record -e cpu-clock` samples only what is on a processor —
 * kernel, V8's helper threads and garbage collection included.
 *
 *   npx tsx bench/forwarding/run.ts --service-flags=--perf-basic-prof-only-functions … &
 *   perf record -a -g -e cpu-clock -F 999 -o /tmp/perf.data -- sleep 80
 *   perf script -i /tmp/perf.data --pid <pid> -F time,pid,tid,ip,sym,dso | npx tsx bench/perfTop.ts [--from S] [--to S] [--top N]
 *
 * The service's pid is the one whose /tmp/perf-<pid>.map names dist/ files. Prints the main thread's
 * samples per second (to choose --from/--to: seconds since the first sample, e.g. the later rounds,
 * after TurboFan's warm-up), the process's threads, the main thread's kernel / garbage-collection /
 * other shares, each sample charged to its nearest JavaScript function (with the builtins, runtime and
 * kernel work below it), and each JavaScript function with everything it called. The bundle's
 * functions are named where their source is (its source map, as bench/cpuProfileTop.ts does).
 */
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { frameName, printRanked, sourceMapped } from "./profileRanking.ts";

const { values: args } = parseArgs({
  options: { from: { type: "string", default: "0" }, to: { type: "string", default: "Infinity" }, top: { type: "string", default: "40" } },
});
const from = Number(args.from);
const to = Number(args.to);
const top = Number(args.top);

interface Sample {
  at: number;
  pid: number;
  tid: number;
  /** Leaf first: "symbol (dso)". */
  frames: string[];
}

const header = /^\s*(\d+)\/(\d+)\s+(\d+\.\d+):\s*$/;
const samples: Sample[] = [];
let start: number | undefined;
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const match = header.exec(line);
  if (match) {
    const at = Number(match[3]);
    start ??= at;
    samples.push({ at: at - start, pid: Number(match[1]), tid: Number(match[2]), frames: [] });
  } else samples.at(-1)?.frames.push(line.trim().replace(/^[0-9a-f]+\s+/, ""));
}

const symbol = (frame: string) => frame.replace(/\s*\((\/tmp\/perf-\d+\.map|[^()]*)\)$/, "");
const isJs = (frame: string) => frame.includes("/tmp/perf-") && frame.includes("JS:");
/** "JS:*insertEvent file:///…/dist/app.js:371:4422" (perf's map: optimized *, baseline ^) as "insertEvent  src/forwarding/record.ts:158". */
const jsName = (frame: string) => {
  const match = /^JS:[*^~]?(\S*) (.+):(\d+):(\d+)$/.exec(symbol(frame));
  if (!match) return symbol(frame);
  return frameName(sourceMapped({ functionName: match[1], url: match[2], lineNumber: Number(match[3]) - 1, columnNumber: Number(match[4]) - 1 }));
};
const isKernel = (frame: string) => frame.includes("[kernel.kallsyms]");
const isGc = (frames: string[]) => frames.some((frame) => /Scaveng|MarkCompact|Heap::CollectGarbage|ConcurrentMarking|Sweeper/.test(frame));
const samplesOf = (n: number) => `${n}`.padStart(6);
const count = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

const main = samples.filter((sample) => sample.pid === sample.tid);
const perSecond = new Map<string, number>();
for (const sample of main) count(perSecond, String(Math.floor(sample.at)));
console.log(`main thread's samples per second: ${[...perSecond].map(([second, n]) => `${second}:${n}`).join(" ")}`);

const window = samples.filter((sample) => sample.at >= from && sample.at < to);
const threads = new Map<string, number>();
for (const sample of window) count(threads, sample.pid === sample.tid ? "main" : `thread ${sample.tid}`);
printRanked(`threads, ${from}–${to} s (share, samples)`, threads, window.length, top, samplesOf);

const onMain = window.filter((sample) => sample.pid === sample.tid && sample.frames.length > 0);
const kinds = new Map<string, number>();
const nearest = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const { frames } of onMain) {
  count(kinds, isKernel(frames[0]) ? "kernel" : isGc(frames) ? "garbage collection" : "user space, not garbage collection");
  const js = frames.find(isJs);
  count(nearest, js ? jsName(js) : `(no JavaScript) ${symbol(frames[Math.min(frames.length - 1, 6)])}`);
  for (const fn of new Set(frames.filter(isJs).map(jsName))) count(inclusive, fn);
}
printRanked("main thread", kinds, onMain.length, top, samplesOf);
printRanked("nearest JavaScript function (with the builtins, runtime and kernel below it)", nearest, onMain.length, top, samplesOf);
printRanked("JavaScript functions with everything they called", inclusive, onMain.length, top, samplesOf);
