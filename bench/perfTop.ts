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
 * kernel work below it), and each JavaScript function with everything it called. Functions are named
 * as perf's map has them, by their place in the bundle (dist/app.js:line:column; its source map names
 * the source).
 */
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";

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

const name = (frame: string) => frame.replace(/\s*\((\/tmp\/perf-\d+\.map|[^()]*)\)$/, "");
const isJs = (frame: string) => frame.includes("/tmp/perf-") && frame.includes("JS:");
const isKernel = (frame: string) => frame.includes("[kernel.kallsyms]");
const isGc = (frames: string[]) => frames.some((frame) => /Scaveng|MarkCompact|Heap::CollectGarbage|ConcurrentMarking|Sweeper/.test(frame));
const share = (count: number, of: number) => `${((100 * count) / of).toFixed(1).padStart(5)} %`;
const ranked = (counts: Map<string, number>, of: number) =>
  [...counts].sort((a, b) => b[1] - a[1]).slice(0, top).map(([key, count]) => `${share(count, of)}  ${key.slice(0, 160)}`).join("\n");
const count = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

const main = samples.filter((sample) => sample.pid === sample.tid);
const perSecond = new Map<string, number>();
for (const sample of main) count(perSecond, String(Math.floor(sample.at)));
console.log(`main thread's samples per second: ${[...perSecond].map(([second, n]) => `${second}:${n}`).join(" ")}\n`);

const window = samples.filter((sample) => sample.at >= from && sample.at < to);
const threads = new Map<string, number>();
for (const sample of window) count(threads, sample.pid === sample.tid ? "main" : `thread ${sample.tid}`);
console.log(`threads, ${from}–${to} s (${window.length} samples)\n${ranked(threads, window.length)}\n`);

const onMain = window.filter((sample) => sample.pid === sample.tid && sample.frames.length > 0);
const kinds = new Map<string, number>();
const nearest = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const { frames } of onMain) {
  count(kinds, isKernel(frames[0]) ? "kernel" : isGc(frames) ? "garbage collection" : "user space, not garbage collection");
  const js = frames.find(isJs);
  count(nearest, js ? name(js) : `(no JavaScript) ${name(frames[Math.min(frames.length - 1, 6)])}`);
  for (const fn of new Set(frames.filter(isJs).map(name))) count(inclusive, fn);
}
console.log(`main thread (${onMain.length} samples)\n${ranked(kinds, onMain.length)}\n`);
console.log(`nearest JavaScript function (with the builtins, runtime and kernel below it)\n${ranked(nearest, onMain.length)}\n`);
console.log(`JavaScript functions with everything they called\n${ranked(inclusive, onMain.length)}`);
