import type { ReconcileLine } from "@sds/sync-client";
import { execute, type Program } from "../../database/program.ts";
import { command } from "../../database/statement.ts";
import { recordOutcome, type RecordingSettings } from "./loop-records.ts";
import type { OutcomeKind } from "./loop-store.ts";

/** One correction of a reconciliation, as the route checked it. */
export interface ReconcileInput {
  readonly token: string;
  readonly outcome: OutcomeKind;
  readonly reason?: string | undefined;
}

/**
 * Every token of a batch locked at once, in the dialect's fixed order, before any line is
 * recorded, where writers overlap (PostgreSQL replicas): two batches touching the same tokens
 * then apply one after the other, each whole, instead of interleaving their lines (which turned
 * two identical batches into up to twice the reversals), and never deadlock. SQLite's one writer
 * already runs one batch at a time.
 */
const LOCK_TOKENS = command<[tokens: readonly string[]]>((dialect) => dialect.advisoryLockEachText);

/**
 * Records a reconciliation's lines in order, in the one write transaction the program runs in:
 * all of them or, when one fails, none. Each line is a transition of its token's current outcome
 * (recordOutcome's rules: a repeat records nothing, a token no entry carries is reported); the
 * answer says per line what was recorded.
 */
export function* reconcileLines(
  lines: readonly ReconcileInput[],
  at: Date,
  settings: RecordingSettings,
): Program<ReconcileLine[]> {
  yield* execute(LOCK_TOKENS, [...new Set(lines.map((line) => line.token))]);
  const results: ReconcileLine[] = [];
  for (const line of lines) {
    const result = yield* recordOutcome(
      {
        token: line.token,
        outcome: line.outcome,
        at,
        source: "reconcile",
        ...(line.reason === undefined ? {} : { reason: line.reason }),
      },
      settings,
    );
    results.push({
      token: line.token,
      status: result.unknownToken === true ? "unknown-token" : result.recorded ? "changed" : "unchanged",
      outcome: line.outcome,
      previousOutcome: result.recorded ? result.record.previousOutcome : null,
      sequence: result.recorded ? result.record.sequence : null,
    });
  }
  return results;
}
