/** What bench/cpuProfileTop.ts and bench/heapProfileTop.ts share: naming a V8 profile's frames and ranking them. */

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

const local = (url: string) => url.replace(/^file:\/\//, "");

/** The package a frame's code is in, or its path from src/, dist/ or bench/; "(native)" without a URL. */
export function frameFile(url: string): string {
  if (!url) return "(native)";
  const path = local(url);
  return /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.replace(/^.*\/(src|dist|bench)\//, "$1/");
}

/** A frame as a row: the function, and where it is (a package's path, or from src/, dist/ or bench/). */
export function frameName({ functionName, url, lineNumber }: CallFrame): string {
  const where = url ? `${local(url).replace(/^.*node_modules\//, "").replace(/^.*\/(src|dist|bench)\//, "$1/")}:${lineNumber + 1}` : "";
  return `${functionName || "(anonymous)"}  ${where}`;
}

/** Prints the `top` largest of `totals`, each as its share of `whole` and as `amount` says. */
export function printRanked(title: string, totals: Map<string, number>, whole: number, top: number, amount: (value: number) => string) {
  console.log(`\n${title}`);
  for (const [name, value] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * value) / whole).toFixed(1).padStart(5)} %  ${amount(value)}  ${name}`);
  }
}
