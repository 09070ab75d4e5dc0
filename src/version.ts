import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's name on npm (the command it installs is `switchyard`). */
export const PACKAGE_NAME = "switchyard-server";

/**
 * The version in the package's own package.json, found by walking up from this file, so it is the
 * same from src/ (tsx), dist/ (compiled) and an installed package.
 */
export const version: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === PACKAGE_NAME && pkg.version) return pkg.version;
    }
    dir = dirname(dir);
  }
  return "0.0.0";
})();
