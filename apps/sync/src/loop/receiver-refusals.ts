import { Counter, type Registry } from "prom-client";
import type { Logger } from "pino";
import { LogThrottle } from "../common/log-throttle.ts";

/** Why the receiver refused an S2S call: the `reason` label of `sds_sync_outcome_calls_refused_total`. */
export const refusalReasons = [
  "unknown_outcome",
  "browser_context",
  "bad_host",
  "bad_target",
  "missing_token",
  "bad_token",
  "account_unavailable",
  "unverifiable",
  "bad_signature",
] as const;
/** One of {@link refusalReasons}. */
export type RefusalReason = (typeof refusalReasons)[number];

/** How often, at most, the receiver logs a summary of the calls it refused. */
const WARN_EVERY_MS = 60_000;

/**
 * Counts the S2S calls the receiver refused, by reason (a metric, and totals for the status
 * page), and says so in the log at most once a minute with the counts since the last line: a
 * flood of forged calls must be visible without flooding the log itself.
 */
export class ReceiverRefusals {
  readonly #counter: Counter<"reason">;
  readonly #logger: Logger;
  readonly #totals = new Map<RefusalReason, number>();
  #sinceWarning = new Map<RefusalReason, number>();
  readonly #throttle: LogThrottle;

  constructor(registry: Registry, logger: Logger, now: () => number = Date.now) {
    this.#counter = new Counter({
      name: "sds_sync_outcome_calls_refused_total",
      help: "S2S outcome calls the receiver refused, by reason (this replica).",
      labelNames: ["reason"],
      registers: [registry],
    });
    for (const reason of refusalReasons) this.#counter.inc({ reason }, 0);
    this.#logger = logger;
    this.#throttle = new LogThrottle(WARN_EVERY_MS, now);
  }

  /** Counts one refused call; logs the summary when the last one is a minute old. */
  count(reason: RefusalReason, detail?: string): void {
    this.#counter.inc({ reason });
    this.#totals.set(reason, (this.#totals.get(reason) ?? 0) + 1);
    this.#sinceWarning.set(reason, (this.#sinceWarning.get(reason) ?? 0) + 1);
    if (!this.#throttle.admit()) return;
    const refused = Object.fromEntries(this.#sinceWarning);
    this.#sinceWarning = new Map();
    this.#logger.warn(
      { refused, last: { reason, ...(detail === undefined ? {} : { detail }) } },
      "the outcome receiver refused S2S calls (counts since the last such line)",
    );
  }

  /** Refused calls since start, in all and by reason. */
  totals(): { readonly total: number; readonly byReason: Readonly<Partial<Record<RefusalReason, number>>> } {
    const byReason = Object.fromEntries(this.#totals) as Partial<Record<RefusalReason, number>>;
    return { total: [...this.#totals.values()].reduce((sum, count) => sum + count, 0), byReason };
  }
}
