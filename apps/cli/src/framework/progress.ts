import type { OutputStream } from "./io.ts";
import type { Styles } from "./styles.ts";

/** A progress bar on one line of a terminal. */
export interface ProgressBar {
  /** Shows `done` of `total`; redraws at most ten times a second. */
  update(done: number, total: number): void;
  /** Clears the bar, leaving the line empty for what comes next. */
  finish(): void;
}

const barWidth = 28;
const redrawIntervalMs = 100;

/**
 * A progress bar drawn on `stream` when it is a terminal, and nothing at all otherwise (a log
 * file or a pipe gets no carriage-return noise).
 */
export function createProgressBar(
  stream: OutputStream,
  label: string,
  styles: Styles,
  now: () => number = Date.now,
): ProgressBar {
  if (stream.isTTY !== true) return { update: () => undefined, finish: () => undefined };
  let lastDrawn = Number.NEGATIVE_INFINITY;
  let drawn = false;
  return {
    update(done, total) {
      const time = now();
      if (time - lastDrawn < redrawIntervalMs && done < total) return;
      lastDrawn = time;
      drawn = true;
      const fraction = total === 0 ? 1 : Math.min(1, done / total);
      const filled = Math.round(fraction * barWidth);
      const bar = styles.green("█".repeat(filled)) + styles.dim("░".repeat(barWidth - filled));
      stream.write(`\r\u001b[2K${label} ${bar} ${done}/${total} ${String(Math.floor(fraction * 100)).padStart(3)}%`);
    },
    finish() {
      if (drawn) stream.write("\r\u001b[2K");
    },
  };
}
