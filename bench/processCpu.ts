import { readFileSync } from "node:fs";

/**
 * The CPU a process has used so far, user and system, in seconds, from /proc/<pid>/stat (Linux; utime
 * and stime are counted in clock ticks, USER_HZ = 100). Throws when the process is gone.
 */
export function processCpuSeconds(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}
