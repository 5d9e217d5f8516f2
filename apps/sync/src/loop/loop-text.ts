import { z } from "zod";

/** The longest token or respondent id the loop takes. */
export const MAX_LOOP_TEXT = 200;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a token or respondent id cannot be stored or put in a link, or undefined when it can:
 * text that a database (a NUL byte), a URL (a lone surrogate) or a log line (control
 * characters) cannot hold is the caller's mistake, answered 400, never a 500 or a 503 that a
 * marketplace would retry for ever.
 */
export function loopTextProblem(text: string): string | undefined {
  if (text.length > MAX_LOOP_TEXT) return `must be at most ${MAX_LOOP_TEXT} characters, got ${text.length}`;
  if (LONE_SURROGATE.test(text)) return "must be well-formed Unicode (it holds a lone surrogate)";
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  if (/[\u0000-\u001f\u007f]/.test(text)) return "must not hold control characters (such as NUL)";
  return undefined;
}

/** A zod string for a token or respondent id, refusing what {@link loopTextProblem} refuses. */
export function loopText() {
  return z.string().superRefine((text, context) => {
    const problem = loopTextProblem(text);
    if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
  });
}
