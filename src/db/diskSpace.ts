import { statfs } from "node:fs/promises";
import { AppError } from "../errors.ts";

/**
 * The embedded database's disk. /readyz reports its free space; while that is under
 * MIN_FREE_DISK_MB new events are refused too (`refuseWhileLow`: inbound webhooks and test events,
 * 503 `disk_space_low` with Retry-After) and the poller waits, so providers deliver them again later
 * instead of the disk filling up: a write that meets a full disk ends the process (storageGuard.ts).
 * A PostgreSQL server's disk is the server's: nothing is read then.
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

/** What Retry-After says while the disk is low: freeing space takes a person. */
const DISK_SPACE_RETRY_AFTER_SECONDS = 60;

/** Throws 503 `disk_space_low` (SERVICE_UNAVAILABLE on GraphQL) while the disk is low: before anything new is stored. */
export function refuseWhileLow(diskSpace: Pick<DiskSpace, "low">): void {
  const freeDiskMb = diskSpace.low();
  if (freeDiskMb === undefined) return;
  throw new AppError("DISK_SPACE_LOW", `The embedded database's disk has ${freeDiskMb} MB free, under MIN_FREE_DISK_MB: nothing new is stored until space is freed. Send this again later.`, {
    retryAfterSeconds: DISK_SPACE_RETRY_AFTER_SECONDS,
    problemMembers: { freeDiskMb },
  });
}
