import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Builds the web console (console/ → console/dist) when the build is missing or older than its
 * sources. `npm start` runs it first (prestart), and the browser tests call it, so a fresh clone
 * needs nothing but `npm install && npm start`. `--force` rebuilds regardless.
 *
 * Steps: typed documents for console/src (codegen, console output only, so a colleague's
 * half-written test document cannot break the console build), then `vite build` into a temporary
 * folder that replaces console/dist in one rename: a running server never serves half a build.
 */

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
export const consoleDir = join(root, "console");
export const consoleDist = join(consoleDir, "dist");

/** Newest modification time under `path` (a file or a folder), skipping build output. */
function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === "generated" || entry === "dist" || entry.startsWith(".")) continue;
    latest = Math.max(latest, newest(join(path, entry)));
  }
  return latest;
}

export function consoleBuildIsStale(): boolean {
  const built = join(consoleDist, "index.html");
  if (!existsSync(built)) return true;
  const sources = [
    join(consoleDir, "src"),
    join(consoleDir, "index.html"),
    join(consoleDir, "vite.config.ts"),
    join(root, "schema.graphql"),
    join(root, "codegen.ts"),
  ];
  return Math.max(...sources.map(newest)) > statSync(built).mtimeMs;
}

async function generateDocuments(): Promise<void> {
  const { generate } = await import("@graphql-codegen/cli");
  const { default: config } = await import("../codegen.ts");
  const output = config.generates["console/src/generated/"];
  if (!output || Array.isArray(output) || typeof output !== "object" || !("documents" in output)) {
    throw new Error('codegen.ts has no "console/src/generated/" output');
  }
  const previous = process.cwd();
  process.chdir(root);
  try {
    await generate({ ...config, documents: output.documents, generates: { "console/src/generated/": output }, silent: true }, true);
  } finally {
    process.chdir(previous);
  }
}

/**
 * One build at a time across processes (test files run in parallel and each asks for the
 * console): a lock folder, created atomically; the others wait for it and then find the build
 * fresh. A lock older than two minutes is a crashed build's and is taken over.
 */
async function withBuildLock<T>(run: () => Promise<T>): Promise<T> {
  const lock = join(consoleDir, ".build-lock");
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 120_000) rmSync(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await run();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export async function buildConsole(options: { force?: boolean; quiet?: boolean } = {}): Promise<boolean> {
  if (!options.force && !consoleBuildIsStale()) return false;
  return withBuildLock(async () => (options.force || consoleBuildIsStale() ? build(options) : false));
}

async function build(options: { quiet?: boolean }): Promise<boolean> {
  const started = Date.now();
  await generateDocuments();
  const vite = await import("vite");
  const temporary = join(consoleDir, `.dist-${process.pid}-${Date.now()}`);
  try {
    await vite.build({
      configFile: join(consoleDir, "vite.config.ts"),
      logLevel: options.quiet ? "error" : "warn",
      build: { outDir: temporary, emptyOutDir: true },
    });
    rmSync(consoleDist, { recursive: true, force: true });
    try {
      renameSync(temporary, consoleDist);
    } catch (error) {
      // Another process finished the same build first: theirs is as good as ours.
      if (!existsSync(join(consoleDist, "index.html"))) throw error;
    }
  } finally {
    rmSync(temporary, { recursive: true, force: true });
  }
  if (!options.quiet) {
    process.stdout.write(`  Console built into ${relative(process.cwd(), consoleDist) || "."} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
  return true;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildConsole({ force: process.argv.includes("--force") }).catch((error: unknown) => {
    console.error("Building the console failed:", error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
