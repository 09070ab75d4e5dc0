/**
 * Ranks a V8 CPU profile (a `.cpuprofile` from `--cpu-prof` or bench/forwarding/profile.mjs) by
 * self time: per function and per file or package.
 *
 *   npx tsx bench/cpuProfileTop.ts /tmp/prof/service-123.cpuprofile [--top 30] [--skip 20] [--busiest 4]
 *
 * `--busiest N` keeps only the N seconds with the fewest idle samples (a benchmark's max-rate phase);
 * `--skip S` leaves out the first S seconds first (start-up, which is busy too: loading modules).
 * Shares are of the busy (non-idle) time in that window. The bundled server's frames are named by
 * its source maps (their file in src/ or their package). A third ranking, total time, counts each
 * of the service's own functions (src/) with everything it called: where a phase's time goes.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type CallFrame, frameFile, frameName, local, printRanked, sourceMapped } from "./profileRanking.ts";

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "30" }, busiest: { type: "string" }, skip: { type: "string", default: "0" } },
});
if (positionals.length !== 1) {
  console.error("usage: npx tsx bench/cpuProfileTop.ts <file.cpuprofile> [--top 30] [--skip <seconds>] [--busiest <seconds>]");
  process.exit(2);
}
const profile = JSON.parse(readFileSync(positionals[0], "utf8")) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id] as const)));
// Each node's frame where its source is, read once (samples and stacks name the same nodes again and again).
const frameOf = new Map(profile.nodes.map((node) => [node.id, sourceMapped(node.callFrame)]));
/** The service's own functions (a file in src/, not a package's src/) by name; undefined for anything else. */
const ownName = new Map(
  [...frameOf].map(([id, frame]) => [id, local(frame.url).includes("/src/") && !local(frame.url).includes("/node_modules/") ? frameName(frame) : undefined]),
);
const IDLE = new Set(["(idle)", "(program)", "(garbage collector)"]);
const isIdle = (id: number) => byId.get(id)?.callFrame.functionName === "(idle)";

// Each sample's time: the delta to the next sample is what it stands for.
const times: number[] = [];
let at = profile.startTime;
for (const delta of profile.timeDeltas) times.push((at += delta));
const weights = times.map((time, i) => (i + 1 < times.length ? times[i + 1] - time : 0));

const skipUntil = profile.startTime + Number(args.skip) * 1e6;
let from = times.findIndex((time) => time >= skipUntil);
if (from === -1) from = times.length;
let to = profile.samples.length;
if (args.busiest) {
  const window = Number(args.busiest) * 1e6;
  let best = -1;
  let busy = 0;
  let start = from;
  for (let end = from; end < times.length; end++) {
    if (!isIdle(profile.samples[end])) busy += weights[end];
    while (times[end] - times[start] > window) {
      if (!isIdle(profile.samples[start])) busy -= weights[start];
      start++;
    }
    if (busy > best) [best, from, to] = [busy, start, end + 1];
  }
}

const perFunction = new Map<string, number>();
const perFile = new Map<string, number>();
const perFunctionTotal = new Map<string, number>();
let busyTotal = 0;
let idleTotal = 0;
for (let i = from; i < to; i++) {
  const frame = frameOf.get(profile.samples[i])!;
  const weight = weights[i];
  if (frame.functionName === "(idle)") {
    idleTotal += weight;
    continue;
  }
  busyTotal += weight;
  // Each of the service's functions on the sample's stack, once however deep its recursion.
  const onStack = new Set<string>();
  for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parentOf.get(id)) {
    const name = ownName.get(id);
    if (name) onStack.add(name);
  }
  for (const name of onStack) perFunctionTotal.set(name, (perFunctionTotal.get(name) ?? 0) + weight);
  const file = IDLE.has(frame.functionName) || !frame.url ? frame.functionName || "(native)" : frameFile(frame.url);
  const name = frameName(frame);
  perFunction.set(name, (perFunction.get(name) ?? 0) + weight);
  perFile.set(file, (perFile.get(file) ?? 0) + weight);
}

const top = Number(args.top);
const show = (title: string, table: Map<string, number>) => printRanked(title, table, busyTotal, top, (micros) => `${(micros / 1000).toFixed(0).padStart(6)} ms`);
console.log(`window ${((times[to - 1] - times[from]) / 1e6).toFixed(1)} s: busy ${(busyTotal / 1000).toFixed(0)} ms, idle ${(idleTotal / 1000).toFixed(0)} ms`);
show("self time by function", perFunction);
show("self time by file or package", perFile);
show("total time of the service's own functions (with what they called)", perFunctionTotal);
