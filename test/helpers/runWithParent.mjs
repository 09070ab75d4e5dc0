// Runs a program that is not Node (redis-server, postgres) as a test's child, through
// test/helpers/childProcess.ts: this wrapper carries exitWithParent.mjs, so the program ends with the
// test process even when that dies without cleaning up. argv[2] is JSON: { command, args, uid?, gid? }.
import { spawn } from "node:child_process";

const { command, args, uid, gid } = JSON.parse(process.argv[2]);
const child = spawn(command, args, { stdio: "inherit", ...(uid !== undefined ? { uid, gid } : {}) });
for (const signal of ["SIGTERM", "SIGINT", "SIGQUIT"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
child.on("error", (error) => {
  console.error(`could not start ${command}: ${error.message}`);
  process.exit(127);
});
