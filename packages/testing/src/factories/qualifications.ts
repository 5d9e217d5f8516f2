import type { Survey, SurveyQualification } from "@sds/schemas";
import { qualificationCatalogue, type CatalogueQualification } from "../fixtures/qualification-catalogue.ts";
import { createSeededRandom, deriveSeed, type SeededRandom } from "../random.ts";
import type { SeedOptions } from "./types.ts";

const catalogueById = new Map(qualificationCatalogue.map((qualification) => [qualification.Id, qualification]));
const AGE = catalogueById.get(42) as CatalogueQualification;
const GENDER = catalogueById.get(43) as CatalogueQualification;
const others = qualificationCatalogue.filter((qualification) => qualification !== AGE && qualification !== GENDER);

const ageLowerBounds = [13, 18, 18, 18, 21, 25, 35, 45] as const;
const ageUpperBounds = [34, 44, 54, 64, 99, 99] as const;

function record(
  survey: Pick<Survey, "SurveyId" | "Qual_LastUpdatedOnUTC">,
  qualification: CatalogueQualification,
  optionIds: readonly number[],
  optionCodes: readonly string[],
): SurveyQualification {
  return {
    SurveyId: survey.SurveyId,
    LastUpdatedOnUTC: survey.Qual_LastUpdatedOnUTC,
    QualificationId: qualification.Id,
    QualificationTypeId: qualification.QualificationTypeId,
    OptionIds: [...optionIds],
    OptionCodes: [...optionCodes],
  };
}

function ageRecord(
  survey: Pick<Survey, "SurveyId" | "Qual_LastUpdatedOnUTC">,
  random: SeededRandom,
): SurveyQualification {
  const lower = random.pick(ageLowerBounds);
  const upper = Math.max(lower + 10, random.pick(ageUpperBounds));
  const options = AGE.Options.filter((option) => option.OptionCode >= lower && option.OptionCode <= upper);
  return record(
    survey,
    AGE,
    options.map((option) => option.OptionId),
    options.map((option) => String(option.OptionCode)),
  );
}

function optionRecord(
  survey: Pick<Survey, "SurveyId" | "Qual_LastUpdatedOnUTC">,
  qualification: CatalogueQualification,
  random: SeededRandom,
): SurveyQualification {
  if (qualification.Options.length === 0) {
    // A free-text question (ZIP codes): codes only, no option ids.
    const codes = Array.from({ length: random.int(1, 8) }, () => String(random.int(10_000, 99_950)).padStart(5, "0"));
    return record(survey, qualification, [], [...new Set(codes)].sort());
  }
  const chosen = random
    .sample(qualification.Options, random.int(1, qualification.Options.length))
    .sort((left, right) => left.OptionCode - right.OptionCode);
  return record(
    survey,
    qualification,
    chosen.map((option) => option.OptionId),
    chosen.map((option) => String(option.OptionCode)),
  );
}

/**
 * Builds the qualification records of a survey, consistent with {@link qualificationCatalogue}:
 * every `QualificationId`, `QualificationTypeId`, `OptionIds` and `OptionCodes` come from it, and
 * `LastUpdatedOnUTC` is the survey's `Qual_LastUpdatedOnUTC`. Age (a contiguous range) and gender
 * come first, then up to four other questions. A survey with `Has_Qualifications: false` has none.
 *
 * @example
 * ```ts
 * const qualifications = buildQualifications(buildSurvey(), { seed: 1 });
 * ```
 */
export function buildQualifications(
  survey: Pick<Survey, "SurveyId" | "Has_Qualifications" | "Qual_LastUpdatedOnUTC">,
  options: SeedOptions = {},
): SurveyQualification[] {
  if (!survey.Has_Qualifications) return [];
  const random = createSeededRandom(deriveSeed(options.seed ?? 1, survey.SurveyId, 2));
  const records = [ageRecord(survey, random), optionRecord(survey, GENDER, random)];
  for (const qualification of random.sample(others, random.int(0, 4))) {
    records.push(optionRecord(survey, qualification, random));
  }
  return records;
}
