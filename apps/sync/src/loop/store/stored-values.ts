import { StoreError } from "../../common/errors.ts";
import type { SqlRow } from "./loop-program.ts";
import { outcomeKinds, outcomeSources, type OutcomeKind, type OutcomeSource } from "./loop-store.ts";

/*
 * The loop store's values as read back, decoded strictly: a value the store should never hold
 * (an unknown outcome, a missing row a statement promised) is a StoreError naming what was read,
 * never a default. A default here would mean money: an unknown outcome read as "complete" counts
 * a complete nobody reported.
 */

/** An outcome column that may be empty (an entry without an outcome yet): null, or one of {@link outcomeKinds}. */
export function storedOutcomeOrNull(value: unknown, column: string): OutcomeKind | null {
  if (value === null || value === undefined) return null;
  return storedOutcome(value, column);
}

/** An outcome column that must hold one of {@link outcomeKinds}. */
export function storedOutcome(value: unknown, column: string): OutcomeKind {
  const kind = outcomeKinds.find((candidate) => candidate === value);
  if (kind === undefined)
    throw new StoreError(`the loop store holds an unknown outcome in ${column}: ${JSON.stringify(value)}`);
  return kind;
}

/** A source column: one of {@link outcomeSources}. */
export function storedSource(value: unknown): OutcomeSource {
  const source = outcomeSources.find((candidate) => candidate === value);
  if (source === undefined)
    throw new StoreError(
      `the loop store holds an unknown outcome source in loop_outcomes.source: ${JSON.stringify(value)}`,
    );
  return source;
}

/** The row a statement must return (an INSERT … RETURNING, a row read under the lock that made it). */
export function requiredRow(row: SqlRow | undefined, what: string): SqlRow {
  if (row === undefined) throw new StoreError(`the loop store returned no row for ${what}`);
  return row;
}
