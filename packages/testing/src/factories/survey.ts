import type { Survey, SurveyQualification } from "@sds/schemas";
import { industries, studyTypes } from "../fixtures/collections.ts";
import { languages } from "../fixtures/languages.ts";
import { formatMillis, formatSeconds } from "../internal/dates.ts";
import { createSeededRandom, deriveSeed, type SeededRandom } from "../random.ts";
import { buildQualifications } from "./qualifications.ts";
import { buildQuotas, type GeneratedQuota } from "./quotas.ts";
import type { SurveyFactoryOptions } from "./types.ts";

/**
 * The default "now" of the factories, 2026-01-15T12:00:00.000Z in epoch milliseconds, so
 * generated dates do not depend on the day the tests run.
 */
export const FACTORY_REFERENCE_TIME = Date.UTC(2026, 0, 15, 12, 0, 0, 0);

/** Builds surveys (and their qualifications and quotas) from one seed. */
export interface SurveyFactory {
  /** The seed in use. */
  readonly seed: number;
  /**
   * Builds the next survey (ids count up from `firstSurveyId`); `overrides` replace generated
   * fields. A given `SurveyId` builds the same survey as the factory would for that id.
   */
  build(overrides?: Partial<Survey>): Survey;
  /** Builds the next `count` surveys. */
  buildMany(count: number): Survey[];
  /** The qualification records of a survey ({@link buildQualifications} with this seed). */
  qualifications(survey: Survey): SurveyQualification[];
  /** The quotas of a survey ({@link buildQuotas} with this seed). */
  quotas(survey: Survey, qualifications?: readonly SurveyQualification[]): GeneratedQuota[];
}

const DEFAULT_FIRST_SURVEY_ID = 100_001;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const topics = [
  "Grocery Shopping Habits",
  "Streaming Services",
  "New Car Buyers",
  "Mobile Banking",
  "Travel Plans",
  "Pet Owners",
  "Fitness & Wellness",
  "Home Improvement",
  "Smartphone Usage",
  "Coffee Drinkers",
  "Online Gaming",
  "Skincare Routine",
  "Energy Drinks",
  "News Consumption",
  "Insurance Shoppers",
  "Quick Service Restaurants",
  "Back to School",
  "Holiday Shopping",
  "Cloud Software Purchasing",
  "Small Business Banking",
] as const;

const audiences = [
  "Gen Pop",
  "Adults 18-34",
  "Parents",
  "Women 25-54",
  "Men 18+",
  "Seniors 65+",
  "Students",
  "IT Decision Makers",
] as const;
const businessAudiences = new Set<string>(["IT Decision Makers"]);

/** Most traffic is English - United States; the rest spreads over every language. */
function pickLanguage(random: SeededRandom): (typeof languages)[number] {
  return random.chance(0.45) ? (languages[0] as (typeof languages)[number]) : random.pick(languages);
}

/**
 * Generates one survey from `(seed, surveyId)` alone, so survey N is the same whether it was
 * built alone or as part of 10,000.
 */
/**
 * The entry link of a generated survey. One in three carries the marketplace's `[#vq_tid#]` /
 * `[#vq_tuid#]` placeholders, in the variants public integrations show (upper case, a stray
 * trailing quote); the rest carry `[%RID%]`. Chosen by id, so no random draw moves.
 */
function surveyUrl(surveyId: number): string {
  const base = `https://survey.example.com/s/${surveyId}`;
  switch (surveyId % 6) {
    case 0:
      return `${base}?tid=[#vq_tid#]&uid=[#vq_tuid#]`;
    case 3:
      return `${base}?lang=en&TID=[#VQ_TID#]"&uid=[#Vq_Tuid#]`;
    default:
      return `${base}?rid=[%RID%]`;
  }
}

function generateSurvey(seed: number, surveyId: number, referenceTime: number): Survey {
  const random = createSeededRandom(deriveSeed(seed, surveyId, 1));
  const language = pickLanguage(random);
  const topic = random.pick(topics);
  const audience = random.pick(audiences);

  // Short interviews and mid incidence are the norm; CPI rises with length and falls with incidence.
  const loi = 3 + Math.floor(random.next() ** 2 * 42);
  const ir = 5 + Math.floor(random.next() * 91);
  const businessMultiplier = businessAudiences.has(audience) ? 2.5 : 1;
  const rawCpi = (0.3 + loi * 0.09 + (100 / ir) * 0.12 + random.next() * 1.5) * businessMultiplier;
  const cpi = Math.min(25, Math.max(0.5, rawCpi)).toFixed(2);

  const lastUpdated = referenceTime - random.int(0, 72 * HOUR);
  // A survey starts before its last update, which is before now.
  const start = Math.floor((lastUpdated - random.int(0, 30 * DAY)) / 1000) * 1000;
  const end = Math.floor((referenceTime + random.int(1 * DAY, 60 * DAY)) / 1000) * 1000;
  const qualificationsUpdated = Math.max(start, lastUpdated - random.int(0, 7 * DAY));
  const quotasUpdated = Math.max(start, lastUpdated - random.int(0, 7 * DAY));

  let desktop = random.chance(0.95);
  const mobile = random.chance(0.8);
  const tablet = random.chance(0.7);
  if (!desktop && !mobile && !tablet) desktop = true;

  return {
    SurveyId: surveyId,
    Name: `${topic} - ${audience} (${language.CountryCode})`,
    Cpi: cpi,
    Ir: String(ir),
    Loi: String(loi),
    StudyTypeId: random.chance(0.8) ? 1 : random.pick(studyTypes).Id,
    Completes: random.int(0, 400),
    LanguageId: language.Id,
    SurveyUrl: surveyUrl(surveyId),
    DesktopAllowed: desktop,
    MobileAllowed: mobile,
    TabletAllowed: tablet,
    LastUpdatedOnUTC: formatMillis(lastUpdated),
    Has_Qualifications: random.chance(0.92),
    Has_Quotas: random.chance(0.65),
    Has_Survey_Groups: random.chance(0.12),
    IndustryId: random.pick(industries).Id,
    CollectPii: random.chance(0.05),
    BuyerId: 2000 + random.int(1, 60),
    StartDate: formatSeconds(start),
    EndDate: formatSeconds(end),
    Qual_LastUpdatedOnUTC: formatMillis(qualificationsUpdated),
    Quota_LastUpdatedOnUTC: formatMillis(quotasUpdated),
    Revenue: Number(cpi),
    IncidentRate: ir,
    LengthOfInterview: loi,
  };
}

function checkCount(count: number): void {
  if (!Number.isSafeInteger(count) || count < 0)
    throw new RangeError(`count must be a non-negative integer, got ${String(count)}`);
}

/**
 * Creates a survey factory: deterministic, realistic surveys that parse with the `Survey`
 * schema. CPI runs from "0.50" to "25.00" and rises with LOI and falling incidence; `LanguageId`,
 * `StudyTypeId` and `IndustryId` refer to the fixtures; dates sit around `referenceTime`.
 *
 * @example
 * ```ts
 * const factory = createSurveyFactory({ seed: 42 });
 * const [first, second] = factory.buildMany(2);
 * const qualifications = factory.qualifications(first);
 * ```
 */
export function createSurveyFactory(options: SurveyFactoryOptions = {}): SurveyFactory {
  const seed = options.seed ?? 1;
  const referenceTime = options.referenceTime === undefined ? FACTORY_REFERENCE_TIME : Number(options.referenceTime);
  if (!Number.isFinite(referenceTime)) throw new RangeError("referenceTime must be a valid date");
  let nextSurveyId = options.firstSurveyId ?? DEFAULT_FIRST_SURVEY_ID;
  if (!Number.isSafeInteger(nextSurveyId))
    throw new RangeError(`firstSurveyId must be an integer, got ${String(nextSurveyId)}`);

  const build = (overrides: Partial<Survey> = {}): Survey => {
    const surveyId = overrides.SurveyId ?? nextSurveyId++;
    return { ...generateSurvey(seed, surveyId, referenceTime), ...overrides };
  };
  return {
    seed,
    build,
    buildMany(count) {
      checkCount(count);
      const surveys = new Array<Survey>(count);
      for (let index = 0; index < count; index++) surveys[index] = build();
      return surveys;
    },
    qualifications: (survey) => buildQualifications(survey, { seed }),
    quotas: (survey, qualifications) => buildQuotas(survey, { seed, ...(qualifications ? { qualifications } : {}) }),
  };
}

/**
 * Builds one survey; `overrides` replace generated fields. Without a `SurveyId` override it is
 * the first survey of the seed.
 *
 * @example
 * ```ts
 * const survey = buildSurvey({ Cpi: "3.00", MobileAllowed: false });
 * ```
 */
export function buildSurvey(overrides: Partial<Survey> = {}, options: SurveyFactoryOptions = {}): Survey {
  return createSurveyFactory(options).build(overrides);
}

/**
 * Builds `count` surveys with consecutive ids. The first N surveys of a seed are the same
 * whatever `count` is.
 *
 * @example
 * ```ts
 * const surveys = buildSurveys(10_000, { seed: 7 });
 * ```
 */
export function buildSurveys(count: number, options: SurveyFactoryOptions = {}): Survey[] {
  return createSurveyFactory(options).buildMany(count);
}
