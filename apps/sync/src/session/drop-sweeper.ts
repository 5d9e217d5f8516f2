import type { Logger } from "pino";
import type { SessionInventory } from "@sds/routing";
import type { LoopContext } from "../loop/loop-context.ts";
import { pendingEntries, recordDrop, type PendingCursor } from "./attempt-records.ts";

/** Pending entries one sweep looks at, oldest first. */
const SWEEP_BATCH = 1000;
/** The Loi assumed for a survey no longer held (closed since), in minutes. */
const UNKNOWN_LOI_MINUTES = 20;

/**
 * The drop sweeper: an entry with no outcome after `SYNC_DROP_AFTER_LOI` × its survey's Loi is
 * a drop, recorded as a terminate with source `timeout` (a failed entry in conversion: yield no
 * longer counts it pending) and as its session attempt's return (`drop`: the session moves on as
 * after a terminate). A later outcome replaces it, as a transition. Reads only pending entries
 * (a partial index), never the whole table, a batch at a time until it has seen them all.
 *
 * @returns how many drops it recorded.
 */
export async function sweepDrops(
  loop: LoopContext,
  inventory: SessionInventory,
  dropAfterLoi: number,
  now: Date,
): Promise<number> {
  // Nothing is due before the shortest possible deadline: one minute of Loi.
  const before = new Date(now.getTime() - dropAfterLoi * 60_000).toISOString();
  let dropped = 0;
  // Page after page: the oldest pending entries may belong to long surveys not due yet, with due ones behind them.
  for (let after: PendingCursor | undefined; ;) {
    const pending = await loop.store.read(pendingEntries(before, SWEEP_BATCH, after));
    for (const entry of pending) {
      const loi = inventory.get(entry.surveyId)?.loiMinutes ?? UNKNOWN_LOI_MINUTES;
      const deadline = entry.issuedAt + Math.max(1, loi) * dropAfterLoi * 60_000;
      if (deadline > now.getTime()) continue;
      const record = await loop.store.write(
        "recording a drop",
        recordDrop(
          loop.store.recordingSettings,
          entry.token,
          now,
          `drop: no outcome after ${dropAfterLoi} × the survey's Loi (${loi} min)`,
        ),
      );
      if (record !== undefined) {
        loop.outcomeNotifier.publish(record.sequence);
        dropped++;
      }
    }
    const last = pending.at(-1);
    if (last === undefined || pending.length < SWEEP_BATCH) return dropped;
    after = { issuedAt: new Date(last.issuedAt).toISOString(), token: last.token };
  }
}

/** Runs `work` every `intervalMs` until stopped, one run at a time, logging a failure. */
export function every(
  name: string,
  intervalMs: number,
  work: () => Promise<unknown>,
  logger: Logger,
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped) return;
    running = running.then(work).catch((error: unknown) => {
      if (!stopped) logger.warn({ err: error, job: name }, `${name} failed; tried again at its next run`);
    });
  }, intervalMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running.catch(() => undefined);
  };
}
