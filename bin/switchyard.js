#!/usr/bin/env node
// The `switchyard` command. An installed package runs the compiled CLI (dist/, built by `npm pack`).
// A checkout (it has tsconfig.json, which the package does not ship) always runs the TypeScript
// sources through tsx: no build step, and never a stale dist/ from an earlier `npm pack`.
import { existsSync } from "node:fs";

const root = new URL("../", import.meta.url);
const compiled = new URL("dist/cli/index.js", root);
if (!existsSync(new URL("tsconfig.json", root)) && existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(new URL("src/cli/index.ts", root).href);
}
