/**
 * The outcomes sds-sync records, as its routes name them (`/v1/outcomes/{outcome}`, the outcome
 * of a reconciliation or of an imported entry).
 */
export const outcomeKinds = ["complete", "terminate", "overquota", "security"] as const;
/** One of {@link outcomeKinds}. */
export type OutcomeKind = (typeof outcomeKinds)[number];

/**
 * Where a recorded outcome came from: the marketplace's server-to-server call, a reconciliation
 * (`POST /v1/outcomes/reconcile`), an outcome that arrived before its entry and was attached
 * when the entry was issued, a signed return of the respondent while the account's S2S URLs are
 * disabled (`redirect`), or a drop: no outcome after `SYNC_DROP_AFTER_LOI` × the survey's Loi,
 * recorded as a terminate (`timeout`).
 */
export const outcomeSources = ["s2s", "reconcile", "attach", "redirect", "timeout"] as const;
/** One of {@link outcomeSources}. */
export type OutcomeSource = (typeof outcomeSources)[number];

/** Whether `value` is one of {@link outcomeKinds}, exactly (no case folding). */
export function isOutcomeKind(value: string): value is OutcomeKind {
  return (outcomeKinds as readonly string[]).includes(value);
}

/**
 * `text` as an outcome, ignoring case and surrounding spaces (as a report file may spell it),
 * or `undefined`.
 *
 * @example
 * ```ts
 * parseOutcomeKind(" Complete "); // "complete"
 * parseOutcomeKind("finished"); // undefined
 * ```
 */
export function parseOutcomeKind(text: string): OutcomeKind | undefined {
  const normalized = text.trim().toLowerCase();
  return outcomeKinds.find((kind) => kind === normalized);
}
