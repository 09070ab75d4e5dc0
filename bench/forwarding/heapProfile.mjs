// Preloaded by `run.ts --heap-prof <dir>` like cpuProfile.mjs: V8's sampling heap profiler over the
// whole process, counting objects the young generation's collections freed too (where a forwarding
// path's garbage is), written to <dir>/<BENCH_HEAP_PROF_NAME or service-<pid>>.heapprofile on exit.
// Rank it with bench/heapProfileTop.ts.
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const dir = process.env.BENCH_HEAP_PROF_DIR;
if (dir) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${process.env.BENCH_HEAP_PROF_NAME ?? `service-${process.pid}`}.heapprofile`);
  const session = new Session();
  session.connect();
  session.post("HeapProfiler.enable");
  session.post("HeapProfiler.startSampling", { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  process.on("SIGTERM", () => {
    if (process.listenerCount("SIGTERM") === 1) process.exit(143);
  });
  process.once("exit", () => {
    session.post("HeapProfiler.stopSampling", (error, result) => {
      if (!error) writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}
