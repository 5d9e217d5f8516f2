import { z } from "zod";

/** The longest transaction token or respondent id sds-sync takes, in UTF-16 code units. */
export const MAX_LOOP_TEXT = 200;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why `text` cannot be a transaction token or a respondent id of sds-sync, or `undefined` when
 * it can: empty text, more than {@link MAX_LOOP_TEXT} characters, or text that a database (a
 * NUL byte), a URL (a lone surrogate) or a log line (control characters) cannot hold. sds-sync
 * answers such text with a 400 naming the field and this sentence; a tool that sends a file
 * checks each line with it first, so a bad line is refused with its line number before
 * anything is sent. Other text kept beside loop records (a reconciliation's reason) is held to
 * the same rule with its own `maxLength`.
 *
 * @example
 * ```ts
 * loopTextProblem("t-8f2c"); // undefined
 * loopTextProblem("a\u0000b"); // "must not hold control characters (such as NUL)"
 * ```
 */
export function loopTextProblem(text: string, maxLength: number = MAX_LOOP_TEXT): string | undefined {
  if (text === "") return "must not be empty";
  if (text.length > maxLength) return `must be at most ${maxLength} characters, got ${text.length}`;
  if (LONE_SURROGATE.test(text)) return "must be well-formed Unicode (it holds a lone surrogate)";
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  if (/[\u0000-\u001f\u007f]/.test(text)) return "must not hold control characters (such as NUL)";
  return undefined;
}

/** A zod string refusing what {@link loopTextProblem} refuses (empty text too, unless `allowEmpty`). */
function loopTextSchema(allowEmpty: boolean, maxLength: number = MAX_LOOP_TEXT) {
  return z.string().superRefine((text, context) => {
    if (allowEmpty && text === "") return;
    const problem = loopTextProblem(text, maxLength);
    if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
  });
}

/** A transaction token or respondent id: a string {@link loopTextProblem} finds nothing wrong with. */
export const LoopText = loopTextSchema(false).meta({ minLength: 1, maxLength: MAX_LOOP_TEXT });

/** A respondent id where one is optional: {@link LoopText}, or empty for none. */
export const LoopTextOrEmpty = loopTextSchema(true).meta({ maxLength: MAX_LOOP_TEXT });

/**
 * Free text kept beside the loop's records and shown to operators (a reconciliation's reason):
 * at most `maxLength` characters, held to {@link loopTextProblem}'s rule (no control characters,
 * which a log line or a terminal would act on, no lone surrogates), empty allowed.
 *
 * @example
 * ```ts
 * loopNote(500).safeParse("rejected in the quality review").success; // true
 * loopNote(500).safeParse("\u001b[2J").success; // false
 * ```
 */
export function loopNote(maxLength: number) {
  return loopTextSchema(true, maxLength).meta({ maxLength });
}

/**
 * Text sds-sync keeps as given (an answer, a user agent, a device fingerprint), at most `max`
 * characters: anything but a NUL, which PostgreSQL's text cannot hold (a store that refuses it
 * would answer 503, an outage, where the other store keeps it).
 *
 * @example
 * ```ts
 * storableText(200).safeParse("a\u0000b").success; // false
 * ```
 */
export function storableText(max: number) {
  return z
    .string()
    .max(max)
    .refine((text) => !text.includes("\u0000"), "must not hold a NUL character");
}
