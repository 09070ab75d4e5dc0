// Loaded with `node --import` into every child process a test starts (test/helpers/childProcess.ts).
// When the test process is gone (a vitest worker killed on a timeout, a Ctrl-C), this child would
// otherwise live on, still listening: it notices that its parent changed and stops itself, first
// politely (SIGTERM: the service's own shutdown), then for good.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid === parent) return;
  process.kill(process.pid, "SIGTERM");
  setTimeout(() => process.kill(process.pid, "SIGKILL"), 10_000).unref();
}, 500).unref();
