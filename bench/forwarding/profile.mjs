// Preloaded into the service by `run.ts --cpu-prof <dir>` (NODE_OPTIONS=--import …; Node 20 refuses
// --cpu-prof in NODE_OPTIONS): profiles the whole process and writes <dir>/<BENCH_CPU_PROF_NAME or
// service-<pid>>.cpuprofile when it exits. With `--heap-prof <dir>` (BENCH_HEAP_PROF_DIR) it also runs
// V8's sampling heap profiler, counting the objects garbage collection freed too (where the event
// path's garbage is), and writes <dir>/service-<pid>.heapprofile (bench/heapProfileTop.ts ranks it).
// Plain JS because it loads before tsx. The folders are made now: the exit handler cannot wait, and a
// missing folder there lost the profile (node's own --cpu-prof-dir is only made when that process
// exits, and the service stops first). Only the main thread is profiled (node's --cpu-prof also
// profiles tsx's loader thread and, with a fixed --cpu-prof-name, that profile overwrote the main
// thread's).
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const cpuDir = process.env.BENCH_CPU_PROF_DIR;
const heapDir = process.env.BENCH_HEAP_PROF_DIR;
if (cpuDir || heapDir) {
  const session = new Session();
  session.connect();
  const outputs = [];
  if (cpuDir) {
    mkdirSync(cpuDir, { recursive: true });
    session.post("Profiler.enable");
    session.post("Profiler.setSamplingInterval", { interval: 500 });
    session.post("Profiler.start");
    outputs.push(["Profiler.stop", join(cpuDir, `${process.env.BENCH_CPU_PROF_NAME ?? `service-${process.pid}`}.cpuprofile`)]);
  }
  if (heapDir) {
    mkdirSync(heapDir, { recursive: true });
    session.post("HeapProfiler.enable");
    session.post("HeapProfiler.startSampling", { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    outputs.push(["HeapProfiler.stopSampling", join(heapDir, `service-${process.pid}.heapprofile`)]);
  }
  // A process without a SIGTERM handler of its own (the peers) would die on it without an exit event.
  process.on("SIGTERM", () => {
    if (process.listenerCount("SIGTERM") === 1) process.exit(143);
  });
  process.once("exit", () => {
    // An in-process session answers synchronously, so this runs to the end inside the exit handler.
    for (const [stop, file] of outputs) {
      session.post(stop, (error, result) => {
        if (!error) writeFileSync(file, JSON.stringify(result.profile));
      });
    }
  });
}
