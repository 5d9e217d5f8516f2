import { answerMeetsParsed, answersMeet, type AnswerRule } from "../matching/answer-rule.ts";
import type { CompiledQuota } from "../matching/compiled-survey.ts";
import { acceptance, answerOutcomes, type AnswerOutcome } from "./answer-outcomes.ts";
import type { HeldSessionSurvey, SessionInventory } from "./session-inventory.ts";
import type {
  DecisionExplanation,
  QuestionEstimate,
  SessionAttempt,
  SessionDecision,
  SessionDecisionOptions,
  SessionDoneReason,
  SessionSituation,
  SurveyEstimate,
} from "./session-types.ts";
import {
  bestOrderOfSorted,
  mergeSorted,
  TopOrderItems,
  byOrderIndex,
  type OrderItem,
  type SessionOrder,
} from "./survey-order.ts";

/** Open surveys the order is chosen among: with a few attempts left, those beyond rank 12 by index never make it. */
const OPEN_KEPT = 12;
/**
 * Surveys per question its value is computed over (the best by index that need it). At most 32:
 * `weighQuestions` names a set of them by the bits of one 32-bit mask.
 */
const NEEDING_KEPT = 32;
/** Surveys an answer can open that are added to the order's candidates (the best by index). */
const OPENED_KEPT = 6;
/** Questions and surveys `explain` lists. */
const EXPLAINED = 10;

/** The session decisions' settings with their defaults filled in ({@link sessionDecisionSettings}). */
export type SessionDecisionSettings = Required<SessionDecisionOptions>;

/** The settings with their defaults. @throws RangeError on a value out of range. */
export function sessionDecisionSettings(options: SessionDecisionOptions = {}): SessionDecisionSettings {
  const settings: SessionDecisionSettings = {
    questionSeconds: options.questionSeconds ?? 8,
    maxAttempts: options.maxAttempts ?? 3,
    patienceMinutes: options.patienceMinutes ?? 20,
    screenOutMinutes: options.screenOutMinutes ?? 1,
    maxUnknownQuestions: options.maxUnknownQuestions ?? 2,
  };
  for (const [name, value] of Object.entries(settings))
    if (!Number.isFinite(value) || value < 0)
      throw new RangeError(`${name} must be a non-negative number, got ${value}`);
  if (!Number.isInteger(settings.maxAttempts) || settings.maxAttempts < 1)
    throw new RangeError(`maxAttempts must be a positive integer, got ${settings.maxAttempts}`);
  if (settings.patienceMinutes <= 0) throw new RangeError("patienceMinutes must be positive");
  return settings;
}

/**
 * Whether the attempts so far end the session: a complete (`completed`), a security terminate
 * (`excluded`: never re-routed), or `maxAttempts` attempts come back (`attempts`; a drop counts).
 * `undefined` while the session goes on (after a terminate, an overquota or a drop, or before any).
 */
export function sessionEnd(attempts: readonly SessionAttempt[], maxAttempts: number): SessionDoneReason | undefined {
  const last = attempts.at(-1);
  if (last?.returned === "complete") return "completed";
  if (last?.returned === "security") return "excluded";
  if (attempts.length >= maxAttempts && last?.returned !== undefined) return "attempts";
  return undefined;
}

/** A survey still open to the respondent, or that needs only answers not given yet. */
interface Candidate {
  readonly item: OrderItem;
  readonly survey: HeldSessionSurvey;
  /** Its rules on questions not answered yet (none: open now). */
  readonly unknown: readonly AnswerRule[];
}

/**
 * The session's next step. While the latest survey's return is awaited, `wait`; after a return
 * that ends the session, `done` ({@link sessionEnd}). Otherwise, among the live surveys the
 * respondent is not kept out of (language, device, every answered qualification met, no closed
 * quota holding them, not tried in this session, not excluded by the respondent rules):
 *
 * - the best order of the attempts left over the surveys open now ({@link bestOrder}: yield's
 *   conversion, `Cpi` in cents, `Loi`, the time a screen-out costs, the respondent's patience);
 * - for each askable question that some survey still open to the respondent needs, the expected
 *   value of that order once answered (over the answers' likelihoods) less its value now: the
 *   question is asked when that gain exceeds what its time is worth at the session's expected
 *   rate (`questionSeconds` × cents per minute of the order), the best such question first;
 * - else the order's first survey (`surveys`, best first, the rest as fall-backs should the
 *   rules refuse one when its entry is recorded), else `done` with `no-survey`.
 *
 * Pure and synchronous: the same inventory and situation give the same decision.
 *
 * @example
 * ```ts
 * const decision = nextSessionStep(inventory, { answers, languageId: 3, attempts: [], excluded: new Set(), askable });
 * ```
 */
export function nextSessionStep(
  inventory: SessionInventory,
  situation: SessionSituation,
  options?: SessionDecisionOptions,
): SessionDecision {
  const settings = sessionDecisionSettings(options);
  const last = situation.attempts.at(-1);
  if (last !== undefined && last.returned === undefined) return { kind: "wait", surveyId: last.surveyId };
  const ended = sessionEnd(situation.attempts, settings.maxAttempts);
  if (ended !== undefined) return { kind: "done", reason: ended };
  if (situation.capReached === true) return { kind: "done", reason: "no-survey" };
  const attemptsLeft = settings.maxAttempts - situation.attempts.length;
  const { open, needing } = candidates(inventory, situation, settings);
  const base = open.entries.map((entry) => entry.item);
  const now = bestOrderOfSorted(base, attemptsLeft);
  const questions = weighQuestions(needing, base, now, situation, settings, attemptsLeft);
  const explanation: DecisionExplanation = {
    expectedCents: now.cents,
    expectedMinutes: now.minutes,
    attemptsLeft,
    questions: questions.slice(0, EXPLAINED),
    surveys: surveyEstimates(now, open.entries, settings),
  };
  const best = questions[0];
  if (best !== undefined && best.gainCents - best.costCents > 1e-9)
    return { kind: "question", qualificationId: best.qualificationId, explanation };
  if (now.surveyIds.length === 0) return { kind: "done", reason: "no-survey", explanation };
  const fallbacks = open.entries.map((entry) => entry.item.surveyId).filter((id) => !now.surveyIds.includes(id));
  return { kind: "survey", surveys: [...now.surveyIds, ...fallbacks].slice(0, EXPLAINED), explanation };
}

function survival(minutes: number, settings: SessionDecisionSettings): number {
  return Math.exp(-minutes / settings.patienceMinutes);
}

/** The survey's order item under these settings, derived once per survey and settings (and conversion). */
function orderItem(survey: HeldSessionSurvey, settings: SessionDecisionSettings): OrderItem {
  const key = settingsKey(settings);
  if (survey.derived?.key === key) return survey.derived.value as OrderItem;
  const item = deriveOrderItem(survey, settings);
  survey.derived = { key, value: item };
  return item;
}

const settingsKeys = new WeakMap<SessionDecisionSettings, string>();
function settingsKey(settings: SessionDecisionSettings): string {
  let key = settingsKeys.get(settings);
  if (key === undefined) {
    key = `${settings.patienceMinutes}/${settings.screenOutMinutes}`;
    settingsKeys.set(settings, key);
  }
  return key;
}

function deriveOrderItem(survey: HeldSessionSurvey, settings: SessionDecisionSettings): OrderItem {
  const conversion = survey.conversion;
  const failMinutes = Math.min(survey.loiMinutes, settings.screenOutMinutes);
  return {
    surveyId: survey.surveyId,
    value: conversion * survey.cpiCents * survival(survey.loiMinutes, settings),
    goOn: (1 - conversion) * survival(failMinutes, settings),
    minutes: conversion * survey.loiMinutes + (1 - conversion) * failMinutes,
  };
}

/** One pass over the inventory: the surveys open now (the best by index), and per askable question those that need it. */
function candidates(
  inventory: SessionInventory,
  situation: SessionSituation,
  settings: SessionDecisionSettings,
): { open: TopOrderItems<Candidate>; needing: Map<number, TopOrderItems<Candidate>> } {
  const { answers, askable, excluded, device, languageId } = situation;
  const tried = new Set(situation.attempts.map((attempt) => attempt.surveyId));
  const open = new TopOrderItems<Candidate>(OPEN_KEPT);
  const needing = new Map<number, TopOrderItems<Candidate>>();
  // Per question (dense index): 2 answered, 1 askable, 0 neither (a survey needing it is out).
  const questionState = new Int8Array(inventory.questionIds.length);
  inventory.questionIds.forEach((qualificationId, index) => {
    questionState[index] = answers.has(String(qualificationId)) ? 2 : askable.has(qualificationId) ? 1 : 0;
  });
  // Per interned rule, judged once a step: 1 met, 2 not met.
  const verdicts = new Int8Array(inventory.ruleCount);
  const { ruleQuestion } = inventory;
  const limit = settings.maxUnknownQuestions;
  const layout = inventory.layout(languageId);
  const { offsets, rules: flatRules, surveyIds } = layout;
  const checkTried = tried.size > 0;
  const checkExcluded = excluded.size > 0;
  for (let index = 0; index < surveyIds.length; index++) {
    if (checkTried || checkExcluded) {
      const id = surveyIds[index] ?? 0;
      if ((checkTried && tried.has(id)) || (checkExcluded && excluded.has(id))) continue;
    }
    let unknownCount = 0;
    let out = false;
    const end = offsets[index + 1] ?? 0;
    for (let position = offsets[index] ?? 0; position < end; position++) {
      const rule = flatRules[position] ?? 0;
      const state = questionState[ruleQuestion[rule] ?? 0] ?? 0;
      if (state === 2) {
        let verdict = verdicts[rule] ?? 0;
        if (verdict === 0) {
          const judged = inventory.ruleAt(rule);
          verdict = answersMeet(judged, answers.get(judged.key)) ? 1 : 2;
          verdicts[rule] = verdict;
        }
        if (verdict === 2) {
          out = true;
          break;
        }
      } else if (state === 0 || ++unknownCount > limit) {
        out = true;
        break;
      }
    }
    if (out) continue;
    const survey = layout.surveys[index] as HeldSessionSurvey;
    if (device !== undefined && !survey.devices.has(device)) continue;
    let unknown: AnswerRule[] | undefined;
    if (unknownCount > 0) {
      unknown = [];
      for (let position = offsets[index] ?? 0; position < end; position++) {
        const rule = flatRules[position] ?? 0;
        if (questionState[ruleQuestion[rule] ?? 0] === 1) unknown.push(inventory.ruleAt(rule));
      }
    }
    if (closedQuotaHolds(survey.closedQuotas, answers)) continue;
    const item = orderItem(survey, settings);
    if (item.value <= 0) continue;
    const candidate: Candidate = { item, survey, unknown: unknown ?? [] };
    if (unknown === undefined) {
      open.offer(candidate);
      continue;
    }
    for (const rule of unknown) {
      let list = needing.get(rule.qualificationId);
      if (list === undefined) {
        list = new TopOrderItems<Candidate>(NEEDING_KEPT);
        needing.set(rule.qualificationId, list);
      }
      list.offer(candidate);
    }
  }
  return { open, needing };
}

/** Whether a closed quota holds the respondent on what they answered (an unanswered condition holds no one yet). */
function closedQuotaHolds(quotas: readonly CompiledQuota[], answers: ReadonlyMap<string, readonly string[]>): boolean {
  for (const quota of quotas) {
    if (quota.conditions === undefined || quota.conditions.length === 0) return true;
    let holds = true;
    for (const condition of quota.conditions) {
      if (!answersMeet(condition, answers.get(condition.key))) {
        holds = false;
        break;
      }
    }
    if (holds) return true;
  }
  return false;
}

/** Each question some candidate needs, with its gain and cost, best net gain first. */
function weighQuestions(
  needing: ReadonlyMap<number, TopOrderItems<Candidate>>,
  base: readonly OrderItem[],
  now: SessionOrder,
  situation: SessionSituation,
  settings: SessionDecisionSettings,
  attemptsLeft: number,
): QuestionEstimate[] {
  const questionMinutes = settings.questionSeconds / 60;
  const rate = now.minutes > 0 ? now.cents / now.minutes : 0;
  const costCents = rate * questionMinutes;
  const outcomesOf = new Map<number, AnswerOutcome[]>();
  const outcomes = (qualificationId: number): AnswerOutcome[] => {
    let known = outcomesOf.get(qualificationId);
    if (known === undefined) {
      const question = situation.askable.get(qualificationId);
      const rules = (needing.get(qualificationId)?.entries ?? []).flatMap((candidate) =>
        candidate.unknown.filter((rule) => rule.qualificationId === qualificationId),
      );
      known = question === undefined ? [] : answerOutcomes(question, situation.answerCounts?.(qualificationId), rules);
      outcomesOf.set(qualificationId, known);
    }
    return known;
  };
  const accepted = new Map<AnswerRule, number>();
  const chanceMet = (rule: AnswerRule): number => {
    let chance = accepted.get(rule);
    if (chance === undefined) {
      chance = acceptance(rule, outcomes(rule.qualificationId));
      accepted.set(rule, chance);
    }
    return chance;
  };
  const estimates: QuestionEstimate[] = [];
  for (const [qualificationId, list] of needing) {
    // What each candidate would add once this question is answered does not depend on the answer:
    // its other questions' chance and minutes. Only which candidates the answer meets does.
    const later: (OrderItem | undefined)[] = [];
    const rulesHere: AnswerRule[][] = [];
    for (const candidate of list.entries) {
      let chance = 1;
      let others = 0;
      const here: AnswerRule[] = [];
      for (const rule of candidate.unknown) {
        if (rule.qualificationId === qualificationId) here.push(rule);
        else {
          chance *= chanceMet(rule);
          others++;
        }
      }
      rulesHere.push(here);
      later.push(chance > 0 ? laterItem(candidate.item, chance, others * questionMinutes, settings) : undefined);
    }
    // Answers that open the same candidates are worth the same: the order is computed once per set
    // (a mask over the list's at most NEEDING_KEPT entries, in their order).
    const valueOfOpened = new Map<number, number>();
    let expected = 0;
    for (const outcome of outcomes(qualificationId)) {
      let opened = 0;
      let mask = 0;
      for (let index = 0; index < later.length && opened < OPENED_KEPT; index++) {
        if (later[index] === undefined) continue;
        let meets = true;
        for (const rule of rulesHere[index] ?? []) {
          if (!answerMeetsParsed(rule, outcome.answer, outcome.number)) {
            meets = false;
            break;
          }
        }
        if (!meets) continue;
        mask |= 1 << index;
        opened++;
      }
      let value = valueOfOpened.get(mask);
      if (value === undefined) {
        const items: OrderItem[] = [];
        for (let index = 0; index < later.length; index++)
          if ((mask >>> index) & 1) items.push(later[index] as OrderItem);
        value =
          items.length === 0
            ? now.cents
            : bestOrderOfSorted(mergeSorted(base, items.sort(byOrderIndex)), attemptsLeft).cents;
        valueOfOpened.set(mask, value);
      }
      expected += outcome.weight * value;
    }
    estimates.push({ qualificationId, gainCents: expected - now.cents, costCents, surveys: list.entries.length });
  }
  return estimates.sort(
    (left, right) =>
      right.gainCents - right.costCents - (left.gainCents - left.costCents) ||
      left.qualificationId - right.qualificationId,
  );
}

/**
 * A survey that the answer would open once `chance` of its other questions are met too: worth
 * that share of its value (after the minutes those questions take), and skipped (the session
 * going on) when they are not.
 */
function laterItem(
  item: OrderItem,
  chance: number,
  questionMinutes: number,
  settings: SessionDecisionSettings,
): OrderItem {
  return {
    surveyId: item.surveyId,
    value: chance * item.value * survival(questionMinutes, settings),
    goOn: 1 - chance * (1 - item.goOn),
    minutes: chance * item.minutes + questionMinutes,
  };
}

function surveyEstimates(
  now: SessionOrder,
  open: readonly Candidate[],
  settings: SessionDecisionSettings,
): SurveyEstimate[] {
  const byId = new Map(open.map((candidate) => [candidate.survey.surveyId, candidate]));
  const ids = [
    ...now.surveyIds,
    ...open.map((candidate) => candidate.survey.surveyId).filter((id) => !now.surveyIds.includes(id)),
  ];
  return ids.slice(0, EXPLAINED).flatMap((id) => {
    const candidate = byId.get(id);
    if (candidate === undefined) return [];
    const { survey } = candidate;
    return [
      {
        surveyId: id,
        cpiCents: survey.cpiCents,
        conversion: survey.conversion,
        loiMinutes: survey.loiMinutes,
        expectedCents: orderItem(survey, settings).value,
      },
    ];
  });
}
