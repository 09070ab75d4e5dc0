// `npm install` / `npm ci` in a source checkout: generate Prisma's client, then build everything
// once (`npm run build`: server into dist/, console, embedded database template) so that `npm start`
// starts in seconds and the first start builds nothing. A packed package (`npm pack`, installed
// with `npm install -g`) ships dist/ built by its prepack and has no tsconfig.build.json: nothing
// to do there (its dependencies' install would not include the compilers anyway).
// Plain JavaScript: it runs before anything could be compiled.
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";

if (existsSync("tsconfig.build.json") && existsSync("src/main.ts")) {
  execSync("prisma generate", { stdio: "inherit" });
  execSync("npm run build", { stdio: "inherit" });
}
