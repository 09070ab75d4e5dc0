import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's name on npm (the command it installs is `switchyard`). */
export const PACKAGE_NAME = "switchyard-server";

/**
 * The package's own folder (prisma/migrations, console/dist, dist/pgdata-template are found from
 * it), by walking up from this file to its package.json: the same from src/ (tsx), from dist/ or
 * dist/chunks/ (the bundle, scripts/build-server.ts) and from an installed package.
 */
export const packageRoot: string = (() => {
  const start = dirname(fileURLToPath(import.meta.url));
  let dir = start;
  for (let i = 0; i < 5; i++) {
    const file = join(dir, "package.json");
    if (existsSync(file) && (JSON.parse(readFileSync(file, "utf8")) as { name?: string }).name === PACKAGE_NAME) return dir;
    dir = dirname(dir);
  }
  return join(start, "..", "..");
})();

/** The version in the package's own package.json. */
export const version: string = (() => {
  try {
    return (JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version?: string }).version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
})();
