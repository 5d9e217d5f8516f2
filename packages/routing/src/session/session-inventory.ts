import type { Device, Survey } from "@sds/schemas";
import { compileTargeting, decimalField, type CompiledQuota } from "../matching/compiled-survey.ts";
import type { AnswerRule } from "../matching/answer-rule.ts";
import type { SurveyTargeting } from "../matching/survey-matcher.ts";
import {
  conversionPosterior,
  conversionPrior,
  DEFAULT_PRIOR_STRENGTH,
  posteriorMean,
} from "../yield/conversion-estimate.ts";
import { checkYieldEvidence, type YieldEvidence } from "../yield/yield-evidence.ts";
import { cpiCents, loiMinutes } from "./cents.ts";

/** The fields of a survey a session reads. Any richer survey type (such as `Survey`) fits. */
export type SessionSurvey = Pick<
  Survey,
  "SurveyId" | "Cpi" | "Ir" | "Loi" | "LanguageId" | "DesktopAllowed" | "MobileAllowed" | "TabletAllowed"
>;

/** One survey as sessions weigh it. */
export interface HeldSessionSurvey {
  readonly surveyId: number;
  /** `Cpi` in integer cents. */
  readonly cpiCents: number;
  readonly loiMinutes: number;
  readonly languageId: number;
  readonly devices: ReadonlySet<Device>;
  readonly ir: number;
  /** @internal The survey's qualification rules, compiled as the matcher compiles them. */
  readonly rules: readonly AnswerRule[];
  /** The rules as indexes into the inventory's interned rules. */
  readonly ruleIds: Int32Array;
  /** @internal The survey's closed quotas, compiled as the matcher compiles them. */
  readonly closedQuotas: readonly CompiledQuota[];
  /** The posterior mean of its conversion (yield's estimate: the marketplace's stats or `Ir` as prior). */
  conversion: number;
  /** What the decisions derived from it, for the settings they ran with (dropped when the conversion moves). */
  derived: { readonly key: string; readonly value: unknown } | undefined;
}

/** The surveys of one language, flat: survey `i`'s rules are `rules[offsets[i]…offsets[i + 1])`. */
export interface LanguageLayout {
  readonly surveys: readonly HeldSessionSurvey[];
  readonly surveyIds: Float64Array;
  readonly offsets: Int32Array;
  readonly rules: Int32Array;
}

/** Options of a {@link SessionInventory}. */
export interface SessionInventoryOptions {
  /** How many entries yield's prior weighs as. @default 10 */
  readonly priorStrength?: number;
  /** The `Loi` assumed for a survey without a readable one, in minutes. @default 15 */
  readonly defaultLoiMinutes?: number;
}

/**
 * The live surveys as sessions weigh them: `Cpi` in cents, `Loi`, the qualification rules and
 * closed quotas, and yield's conversion estimate (the same Beta posterior as `SurveyMatcher`'s
 * order `"yield"`, by its mean). Kept current survey by survey like the matcher. A survey whose
 * targeting is not stored, or whose `Cpi` is not a finite decimal, is not held: a session never
 * offers it.
 *
 * @example
 * ```ts
 * const inventory = new SessionInventory();
 * inventory.upsert(survey, { qualifications, quotas });
 * ```
 */
export class SessionInventory {
  readonly #surveys = new Map<number, HeldSessionSurvey>();
  readonly #byLanguage = new Map<number, Map<number, HeldSessionSurvey>>();
  /** Per language, the flat layout a step scans, rebuilt at the first step after a change. */
  readonly #layouts = new Map<number, LanguageLayout>();
  readonly #evidence = new Map<number, YieldEvidence>();
  readonly #strength: number;
  readonly #defaultLoi: number;
  /** Identical rules (same question, same codes) are held once, so a step judges each once. */
  readonly #ruleIds = new Map<string, number>();
  readonly #rules: (AnswerRule | undefined)[] = [];
  readonly #ruleUses: number[] = [];
  readonly #freeRules: number[] = [];
  readonly #questionIds: number[] = [];
  readonly #questionIndex = new Map<number, number>();
  /** @internal Per interned rule, the dense index of its question. */
  ruleQuestion = new Int32Array(64);

  constructor(options: SessionInventoryOptions = {}) {
    this.#strength = options.priorStrength ?? DEFAULT_PRIOR_STRENGTH;
    conversionPrior({ ir: 50 }, this.#strength);
    this.#defaultLoi = options.defaultLoiMinutes ?? 15;
  }

  /** How many surveys are held. */
  get size(): number {
    return this.#surveys.size;
  }

  /** The held survey, if any. */
  get(surveyId: number): HeldSessionSurvey | undefined {
    return this.#surveys.get(surveyId);
  }

  /** Every held survey, in no particular order. */
  values(): IterableIterator<HeldSessionSurvey> {
    return this.#surveys.values();
  }

  /** How many rule slots there are (some may be free). */
  get ruleCount(): number {
    return this.#rules.length;
  }

  /** @internal The interned rule at an index. */
  ruleAt(index: number): AnswerRule {
    const rule = this.#rules[index];
    if (rule === undefined) throw new RangeError(`no rule at ${index}`);
    return rule;
  }

  /** The questions rules were ever interned for, by dense index. */
  get questionIds(): readonly number[] {
    return this.#questionIds;
  }

  #intern(rule: AnswerRule): number {
    const key = `${rule.qualificationId}:${rule.optionCodes.join("\u0001")}`;
    let index = this.#ruleIds.get(key);
    if (index === undefined) {
      index = this.#freeRules.pop() ?? this.#rules.length;
      this.#rules[index] = rule;
      this.#ruleUses[index] = 0;
      this.#ruleIds.set(key, index);
      let question = this.#questionIndex.get(rule.qualificationId);
      if (question === undefined) {
        question = this.#questionIds.length;
        this.#questionIds.push(rule.qualificationId);
        this.#questionIndex.set(rule.qualificationId, question);
      }
      if (index >= this.ruleQuestion.length) {
        const grown = new Int32Array(this.ruleQuestion.length * 2);
        grown.set(this.ruleQuestion);
        this.ruleQuestion = grown;
      }
      this.ruleQuestion[index] = question;
    }
    this.#ruleUses[index] = (this.#ruleUses[index] ?? 0) + 1;
    return index;
  }

  #release(index: number): void {
    const uses = (this.#ruleUses[index] ?? 1) - 1;
    this.#ruleUses[index] = uses;
    if (uses > 0) return;
    const rule = this.#rules[index];
    if (rule !== undefined) this.#ruleIds.delete(`${rule.qualificationId}:${rule.optionCodes.join("\u0001")}`);
    this.#rules[index] = undefined;
    this.#freeRules.push(index);
  }

  /** The held surveys in one language, in no particular order. */
  inLanguage(languageId: number): Iterable<HeldSessionSurvey> {
    return this.#byLanguage.get(languageId)?.values() ?? [];
  }

  /**
   * The surveys of one language laid out flat for a step's scan: their ids and rule indexes in
   * typed arrays, so the scan touches a survey's object only when it passes.
   *
   * @internal
   */
  layout(languageId: number): LanguageLayout {
    let layout = this.#layouts.get(languageId);
    if (layout !== undefined) return layout;
    const surveys = [...(this.#byLanguage.get(languageId)?.values() ?? [])];
    const offsets = new Int32Array(surveys.length + 1);
    let total = 0;
    surveys.forEach((survey, index) => {
      offsets[index] = total;
      total += survey.ruleIds.length;
    });
    offsets[surveys.length] = total;
    const rules = new Int32Array(total);
    surveys.forEach((survey, index) => {
      rules.set(survey.ruleIds, offsets[index] ?? 0);
    });
    layout = { surveys, surveyIds: Float64Array.from(surveys, (survey) => survey.surveyId), offsets, rules };
    this.#layouts.set(languageId, layout);
    return layout;
  }

  /** Adds a live survey or replaces it; a survey awaiting a refetch (targeting `null`) or with an unreadable `Cpi` is dropped. */
  upsert(survey: SessionSurvey, targeting: SurveyTargeting): void {
    const cents = cpiCents(survey.Cpi);
    if (targeting.qualifications === null || targeting.quotas === null || cents === undefined) {
      this.remove(survey.SurveyId);
      return;
    }
    const compiled = compileTargeting(targeting.qualifications, targeting.quotas);
    const devices = new Set<Device>();
    if (survey.DesktopAllowed) devices.add("desktop");
    if (survey.MobileAllowed) devices.add("mobile");
    if (survey.TabletAllowed) devices.add("tablet");
    this.remove(survey.SurveyId);
    const rules = compiled.qualifications ?? [];
    const held: HeldSessionSurvey = {
      surveyId: survey.SurveyId,
      cpiCents: cents,
      loiMinutes: loiMinutes(survey.Loi) ?? this.#defaultLoi,
      languageId: survey.LanguageId,
      devices,
      ir: decimalField(survey.Ir),
      rules,
      ruleIds: Int32Array.from(rules, (rule) => this.#intern(rule)),
      closedQuotas: compiled.closedQuotas ?? [],
      conversion: 0,
      derived: undefined,
    };
    held.conversion = this.#estimate(held);
    this.#surveys.set(survey.SurveyId, held);
    let language = this.#byLanguage.get(held.languageId);
    if (language === undefined) {
      language = new Map();
      this.#byLanguage.set(held.languageId, language);
    }
    language.set(held.surveyId, held);
    this.#layouts.delete(held.languageId);
  }

  /** Drops a survey no longer live. */
  remove(surveyId: number): boolean {
    const held = this.#surveys.get(surveyId);
    if (held === undefined) return false;
    this.#surveys.delete(surveyId);
    for (const index of held.ruleIds) this.#release(index);
    const language = this.#byLanguage.get(held.languageId);
    language?.delete(surveyId);
    this.#layouts.delete(held.languageId);
    if (language?.size === 0) this.#byLanguage.delete(held.languageId);
    return true;
  }

  /** Drops every survey not in `live` (after a full reload of the inventory). */
  retainOnly(live: ReadonlySet<number>): void {
    for (const id of [...this.#surveys.keys()]) if (!live.has(id)) this.remove(id);
  }

  /**
   * Sets what is known of a survey's outcomes (as `SurveyMatcher.setYieldEvidence`); kept by id
   * whether or not the survey is held.
   *
   * @throws RangeError when a count is out of range.
   */
  setYieldEvidence(surveyId: number, evidence: YieldEvidence | undefined): void {
    if (evidence === undefined) this.#evidence.delete(surveyId);
    else {
      checkYieldEvidence(surveyId, evidence);
      this.#evidence.set(surveyId, evidence);
    }
    const held = this.#surveys.get(surveyId);
    if (held !== undefined) {
      held.conversion = this.#estimate(held);
      held.derived = undefined;
    }
  }

  #estimate(survey: HeldSessionSurvey): number {
    const evidence = this.#evidence.get(survey.surveyId);
    const prior = conversionPrior(
      { ir: survey.ir, marketplaceConversion: evidence?.marketplaceConversion },
      this.#strength,
    );
    return posteriorMean(conversionPosterior(prior, evidence));
  }
}
