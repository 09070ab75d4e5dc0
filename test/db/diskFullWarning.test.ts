import pino from "pino";
import { expect, test } from "vitest";
import { createDatabaseOutage } from "../../src/db/outage.ts";
import { fakeClock } from "../helpers/clock.ts";

/**
 * A full disk has no end anyone sees (`select 1` still answers), so it is warned about at most once a
 * minute, with how many writes were refused since the last warning — never once per request.
 */
test("a full database disk is warned about at most once a minute, with the writes refused since", () => {
  const lines: Array<{ msg: string; refused?: number; code?: string }> = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const clock = fakeClock();
  const outage = createDatabaseOutage({} as never, logger, () => clock.now().getTime());
  // As node-postgres reports a table that cannot grow.
  const full = Object.assign(new Error('could not extend file "base/5/16825": No space left on device'), { code: "53100", hint: "Check free disk space." });

  for (let i = 0; i < 5; i++) expect(outage.refusal(full)?.extra.retryAfterSeconds).toBe(60);
  clock.advance(59_000);
  outage.noted(full);
  expect(lines).toEqual([expect.objectContaining({ refused: 1, code: "53100" })]);

  clock.advance(1_000);
  expect(outage.noted(full)).toBe(true);
  expect(lines).toHaveLength(2);
  expect(lines[1]).toMatchObject({ refused: 6, msg: expect.stringContaining("its disk is full") });

  // Not every failed statement is a full disk.
  expect(outage.refusal(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBeUndefined();
  outage.close();
});

/** /readyz says `"databaseDisk": "full"` for as long as the refused callers were told to wait (Retry-After: 60). */
test("a full database disk is reported for 60 s after the last write it refused", () => {
  const clock = fakeClock();
  const outage = createDatabaseOutage({} as never, pino({ level: "silent" }), () => clock.now().getTime());
  const full = Object.assign(new Error("could not extend file"), { code: "53100" });
  expect(outage.diskFull()).toBe(false);
  outage.refusal(full);
  clock.advance(59_999);
  expect(outage.diskFull()).toBe(true);
  clock.advance(1);
  expect(outage.diskFull()).toBe(false);
  outage.noted(full);
  expect(outage.diskFull()).toBe(true);
  outage.close();
});
