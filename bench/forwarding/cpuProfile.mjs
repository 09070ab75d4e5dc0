// Preloaded into the service by `run.ts --cpu-prof <dir>` (NODE_OPTIONS=--import …; Node 20 refuses
// --cpu-prof in NODE_OPTIONS): profiles the whole process and writes <dir>/service-<pid>.cpuprofile
// when it exits. Plain JS because it loads before tsx.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 500 });
  session.post("Profiler.start");
  process.once("exit", () => {
    // An in-process session answers synchronously, so this runs to the end inside the exit handler.
    session.post("Profiler.stop", (error, result) => {
      if (!error) writeFileSync(join(dir, `service-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
