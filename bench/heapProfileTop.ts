/**
 * Ranks a sampling heap profile (bench/forwarding/profile.mjs, with the objects garbage
 * collection freed counted in) by bytes allocated: per function and per file or package. Which code
 * makes the garbage the collector then spends its share of the CPU on.
 *
 *   npx tsx bench/heapProfileTop.ts /tmp/heap/service-123.heapprofile [--top 30]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type CallFrame, frameFile, frameName, printRanked, sourceMapped } from "./profileRanking.ts";

interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}

const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: "string", default: "30" } } });
if (positionals.length !== 1) {
  console.error("usage: npx tsx bench/heapProfileTop.ts <file.heapprofile> [--top 30]");
  process.exit(2);
}
const { head } = JSON.parse(readFileSync(positionals[0], "utf8")) as { head: HeapNode };
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
let total = 0;
const stack = [head];
while (stack.length > 0) {
  const node = stack.pop()!;
  const frame = sourceMapped(node.callFrame);
  const file = frameFile(frame.url);
  const name = frameName(frame);
  byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
  byFile.set(file, (byFile.get(file) ?? 0) + node.selfSize);
  total += node.selfSize;
  stack.push(...node.children);
}
const top = Number(args.top);
const print = (title: string, map: Map<string, number>) => printRanked(title, map, total, top, (bytes) => `${(bytes / 1048576).toFixed(1).padStart(8)} MB`);
console.log(`allocated in all (sampled): ${(total / 1048576).toFixed(0)} MB`);
print("bytes allocated by function", byFunction);
print("bytes allocated by file or package", byFile);
