#!/usr/bin/env node
// The `switchyard` command: runs the TypeScript CLI (src/cli/index.ts) through tsx, so no build step is needed.
import { register } from "tsx/esm/api";

register();
await import(new URL("../src/cli/index.ts", import.meta.url).href);
