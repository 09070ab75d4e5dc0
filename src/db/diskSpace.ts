import { statfs } from "node:fs/promises";

/**
 * The embedded database's disk. /readyz reports its free space; while that is under
 * MIN_FREE_DISK_MB inbound webhooks are refused too (503 `disk_space_low` with Retry-After), so
 * providers deliver them again later instead of the disk filling up: a write that meets a full disk
 * ends the process (storageGuard.ts). A PostgreSQL server's disk is the server's: nothing is read then.
 */
export interface DiskSpace {
  /** Reads it now: the free MB and whether that is under the minimum; undefined on a PostgreSQL server or when it cannot be read. */
  read(): Promise<DiskReading | undefined>;
  /**
   * The free MB when the last reading was under the minimum, else undefined. Cheap enough for every
   * request: it only starts a new reading, in the background, once the last is a second old.
   */
  low(): number | undefined;
}

export interface DiskReading {
  freeMb: number;
  /** Under MIN_FREE_DISK_MB. */
  low: boolean;
}

const READING_MAX_AGE_MS = 1000;

export function createDiskSpace(dir: string | undefined, minFreeMb: number, now: () => number = Date.now): DiskSpace {
  let last: { at: number; reading: DiskReading | undefined } | undefined;
  let reading = false;

  async function read(): Promise<DiskReading | undefined> {
    if (dir === undefined) return undefined;
    let current: DiskReading | undefined;
    try {
      const stats = await statfs(dir);
      // What an unprivileged process may still use (bavail), as PostgreSQL's files are written.
      const freeMb = Math.floor((stats.bavail * stats.bsize) / (1024 * 1024));
      current = { freeMb, low: freeMb < minFreeMb };
    } catch {
      current = undefined;
    }
    last = { at: now(), reading: current };
    return current;
  }

  function readInBackground() {
    reading = true;
    void read().finally(() => {
      reading = false;
    });
  }
  // The first reading at once, so the first requests are not let through unread.
  if (dir !== undefined) readInBackground();

  return {
    read,
    low() {
      if (dir === undefined) return undefined;
      if (!reading && (!last || now() - last.at >= READING_MAX_AGE_MS)) readInBackground();
      return last?.reading?.low ? last.reading.freeMb : undefined;
    },
  };
}
