/*
 * What sds-sync accepts in a token, a respondent id and an outcome: its own rules (apps/sync
 * loop-text.ts and loop-store.ts), checked by the commands before a file's first batch is sent,
 * so that a bad line is refused with its line number and nothing half-sent.
 */

/**
 * Why `text` cannot be a token or respondent id of sds-sync, or undefined when it can: the
 * rules of sds-sync's `loopText` (at most 200 characters, well-formed Unicode, no control
 * characters), checked here so that a file is refused before its first batch is sent.
 */
export function loopTextProblem(text: string): string | undefined {
  if (text === "") return "is empty";
  if (text.length > 200) return `is longer than 200 characters (${text.length})`;
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text))
    return "is not well-formed Unicode";
  // eslint-disable-next-line no-control-regex -- control characters are exactly what sds-sync refuses
  if (/[\u0000-\u001f\u007f]/.test(text)) return "holds a control character (such as a line break or a tab)";
  return undefined;
}

/** The outcomes sds-sync records, as its routes name them. */
export const outcomeKinds = ["complete", "terminate", "overquota", "security"] as const;
/** One of {@link outcomeKinds}. */
export type OutcomeKind = (typeof outcomeKinds)[number];

/** `text` as an outcome (case and edge spaces ignored), or undefined. */
export function parseOutcome(text: string): OutcomeKind | undefined {
  const normalized = text.trim().toLowerCase();
  return outcomeKinds.find((kind) => kind === normalized);
}

/** The longest reason sds-sync keeps with a reconciliation. */
export const MAX_REASON_LENGTH = 500;

/** The most lines sds-sync takes in one request, for both reconciliation and history import. */
export const MAX_SYNC_BATCH = 1000;

const isoWithZone =
  /^(\d{4})-(\d\d)-(\d\d)T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/**
 * Why `text` is not a time sds-sync takes (ISO 8601 with seconds and a zone, as zod's
 * `iso.datetime({ offset: true })` has it: `2026-01-05T10:00:00Z`, `…+02:00`), or undefined.
 */
export function isoTimeProblem(text: string): string | undefined {
  const match = isoWithZone.exec(text);
  const example = "such as 2026-01-05T10:00:00Z or 2026-01-05T12:00:00+02:00";
  if (match === null) return `is not an ISO 8601 time with seconds and a zone, ${example}`;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return `is not a date of the calendar (${match[1]}-${match[2]}-${match[3]})`;
  return undefined;
}
