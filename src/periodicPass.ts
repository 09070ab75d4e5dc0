import type { Logger } from "pino";

/**
 * A background pass run again `intervalMs` after each one ends (never two at once), first after
 * `firstDelayMs`. A failed pass is logged and the next one retries — unless `outage` notes the
 * failure as the database being unreachable: an outage is logged once, there, not once a pass. The
 * timer never keeps the process alive. `stop` waits for the pass in progress, which may check
 * `stopping()` between its statements to end sooner.
 */
export function periodicPass(
  pass: () => Promise<unknown>,
  {
    intervalMs,
    firstDelayMs = intervalMs,
    logger,
    failure,
    outage,
  }: { intervalMs: number; firstDelayMs?: number; logger: Logger; failure: string; outage?: { noted(error: unknown): boolean } },
) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let started = false;
  let stopped = false;

  function schedule(delayMs: number) {
    timer = setTimeout(() => {
      running = pass()
        .catch((error) => {
          if (!outage?.noted(error)) logger.warn({ err: error }, failure);
        })
        .finally(() => {
          if (!stopped) schedule(intervalMs);
        });
    }, delayMs);
    timer.unref();
  }

  return {
    start() {
      if (started || stopped) return;
      started = true;
      schedule(firstDelayMs);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
    stopping: () => stopped,
  };
}
