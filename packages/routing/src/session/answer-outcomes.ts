import { answerMeetsParsed, answerNumber, type AnswerRule } from "../matching/answer-rule.ts";
import type { SessionQuestion } from "./session-types.ts";

/** One answer a respondent may give, and how likely it is. */
export interface AnswerOutcome {
  readonly answer: string;
  readonly weight: number;
  /** The answer as a number (`answerNumber`), read once for the many rules it is judged against. */
  readonly number: number | undefined;
}

/** Most answers a question's value is computed over; more are thinned evenly (their weights kept). */
const MAX_OUTCOMES = 24;

/** Stands for "an answer no survey names" (a ZIP code nobody targets): it meets no rule. */
const UNNAMED_ANSWER = "\u0000unnamed";

/**
 * The answers a question may get, with their likelihoods (summing to 1): for a question with
 * options, each option, weighed by how often respondents of the language gave it plus one (uniform
 * before any profile); for a numeric or text question, the answers given before, else the codes
 * and range bounds the surveys that need it name, uniformly, besides an answer none of them names.
 */
export function answerOutcomes(
  question: SessionQuestion,
  counts: ReadonlyMap<string, number> | undefined,
  rules: readonly AnswerRule[],
): AnswerOutcome[] {
  if (question.optionCodes.length > 0 && question.type !== "numeric" && question.type !== "text") {
    return normalise(question.optionCodes.map((code) => ({ answer: code, weight: (counts?.get(code) ?? 0) + 1 })));
  }
  if (counts !== undefined && counts.size > 0) {
    return normalise([...counts].map(([answer, weight]) => ({ answer, weight })));
  }
  const named = new Set<string>();
  for (const rule of rules) {
    for (const code of rule.codes) if (rule.ranges.length === 0 || !code.includes("-")) named.add(code);
    for (let bound = 0; bound < rule.ranges.length; bound++) {
      const value = rule.ranges[bound] ?? Number.NaN;
      if (Number.isFinite(value)) named.add(String(value));
    }
  }
  const outcomes = [...named].map((answer) => ({ answer, weight: 1 }));
  outcomes.push({ answer: UNNAMED_ANSWER, weight: 1 });
  return normalise(outcomes);
}

/** The chance an answer drawn from `outcomes` meets the rule. */
export function acceptance(rule: AnswerRule, outcomes: readonly AnswerOutcome[]): number {
  let chance = 0;
  for (const outcome of outcomes) if (answerMeetsParsed(rule, outcome.answer, outcome.number)) chance += outcome.weight;
  return Math.min(1, chance);
}

function normalise(outcomes: { readonly answer: string; readonly weight: number }[]): AnswerOutcome[] {
  let kept = outcomes;
  if (outcomes.length > MAX_OUTCOMES) {
    // Thin evenly, each kept answer carrying the weight of those it stands for.
    const step = outcomes.length / MAX_OUTCOMES;
    kept = [];
    for (let slot = 0; slot < MAX_OUTCOMES; slot++) {
      const from = Math.floor(slot * step);
      const to = Math.floor((slot + 1) * step);
      let weight = 0;
      for (let index = from; index < to; index++) weight += outcomes[index]?.weight ?? 0;
      kept.push({ answer: outcomes[from]?.answer ?? "", weight });
    }
  }
  const total = kept.reduce((sum, outcome) => sum + outcome.weight, 0);
  return total > 0
    ? kept.map((outcome) => ({
        answer: outcome.answer,
        weight: outcome.weight / total,
        number: answerNumber(outcome.answer),
      }))
    : [];
}
