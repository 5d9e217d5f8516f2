/**
 * One qualification or quota condition compiled for matching: the codes it accepts as text, and
 * the numeric ranges among them (`"25-34"` inclusive, `"55+"` and above).
 */
export interface AnswerRule {
  readonly qualificationId: number;
  /** `String(qualificationId)`: the key of the answers map. */
  readonly key: string;
  /** The codes as given. */
  readonly optionCodes: readonly string[];
  readonly codes: ReadonlySet<string>;
  /** Inclusive bounds, flattened: `[low0, high0, low1, high1, …]`. */
  readonly ranges: readonly number[];
}

const numberPattern = /^-?\d+(?:\.\d+)?$/;
const rangePattern = /^\s*(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s*$/;
const openRangePattern = /^\s*(\d+(?:\.\d+)?)\s*\+\s*$/;

/** The bounds a range code stands for, or `undefined` when the code is not a range. */
export function rangeOf(code: string): readonly [number, number] | undefined {
  const closed = rangePattern.exec(code);
  if (closed) return [Number(closed[1]), Number(closed[2])];
  const open = openRangePattern.exec(code);
  if (open) return [Number(open[1]), Number.POSITIVE_INFINITY];
  return undefined;
}

/** An answer as a number, when it is one (`"30"`, `"2.5"`); `undefined` otherwise. */
export function answerNumber(answer: string): number | undefined {
  const trimmed = answer.trim();
  return numberPattern.test(trimmed) ? Number(trimmed) : undefined;
}

/** Compiles the option codes of one qualification (or quota condition). */
export function compileAnswerRule(qualificationId: number, optionCodes: readonly string[]): AnswerRule {
  const ranges: number[] = [];
  for (const code of optionCodes) {
    const range = rangeOf(code);
    if (range) ranges.push(range[0], range[1]);
  }
  return { qualificationId, key: String(qualificationId), optionCodes, codes: new Set(optionCodes), ranges };
}

/** Whether one answer meets the rule: equal to one of its codes, or a number inside one of its ranges. */
export function answerMeets(rule: AnswerRule, answer: string): boolean {
  if (rule.codes.has(answer)) return true;
  if (rule.ranges.length === 0) return false;
  return inRanges(rule, answerNumber(answer));
}

/**
 * {@link answerMeets} with the answer's number already read (`answerNumber(answer)`): a caller
 * judging one answer against many rules reads it once.
 */
export function answerMeetsParsed(rule: AnswerRule, answer: string, value: number | undefined): boolean {
  return rule.codes.has(answer) || (rule.ranges.length > 0 && inRanges(rule, value));
}

function inRanges(rule: AnswerRule, value: number | undefined): boolean {
  if (value === undefined) return false;
  for (let index = 0; index < rule.ranges.length; index += 2) {
    if (value >= (rule.ranges[index] ?? Number.NaN) && value <= (rule.ranges[index + 1] ?? Number.NaN)) return true;
  }
  return false;
}

/** Whether any of the answers meets the rule (OR within one qualification). */
export function answersMeet(rule: AnswerRule, answers: readonly string[] | undefined): boolean {
  if (answers === undefined) return false;
  for (const answer of answers) if (answerMeets(rule, answer)) return true;
  return false;
}
