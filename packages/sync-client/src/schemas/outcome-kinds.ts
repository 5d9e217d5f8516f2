/**
 * The outcomes sds-sync records, as its routes name them (`/v1/outcomes/{outcome}`, the outcome
 * of a reconciliation or of an imported entry).
 */
export const outcomeKinds = ["complete", "terminate", "overquota", "security"] as const;
/** One of {@link outcomeKinds}. */
export type OutcomeKind = (typeof outcomeKinds)[number];

/**
 * Where a recorded outcome came from: the marketplace's server-to-server call, a reconciliation
 * (`POST /v1/outcomes/reconcile`), or an outcome that arrived before its entry and was attached
 * when the entry was issued.
 */
export const outcomeSources = ["s2s", "reconcile", "attach"] as const;
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
