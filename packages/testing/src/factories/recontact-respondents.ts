import type { Survey } from "@sds/schemas";
import { RECONTACT_STUDY_TYPE_ID } from "../fixtures/collections.ts";
import { createSeededRandom, deriveSeed } from "../random.ts";
import type { SeedOptions } from "./types.ts";

/** A respondent a re-contact survey may admit, in Lucid's shape: the supplier's id (`PID`) and whether it is active. */
export type GeneratedRecontactRespondent = {
  readonly PID: string;
  readonly IsActive: boolean;
};

/**
 * Builds the respondents a re-contact survey may admit: none unless the survey's study type is
 * Recontact ({@link RECONTACT_STUDY_TYPE_ID}), then 3 to 40 distinct PIDs, about one in five
 * inactive (listed, but no longer to be let in).
 *
 * @example
 * ```ts
 * buildRecontactRespondents(buildSurvey({ StudyTypeId: RECONTACT_STUDY_TYPE_ID }));
 * // [{ PID: "pid-100001-0c1f3a", IsActive: true }, …]
 * ```
 */
export function buildRecontactRespondents(
  survey: Pick<Survey, "SurveyId" | "StudyTypeId">,
  options: SeedOptions = {},
): GeneratedRecontactRespondent[] {
  if (survey.StudyTypeId !== RECONTACT_STUDY_TYPE_ID) return [];
  const random = createSeededRandom(deriveSeed(options.seed ?? 1, survey.SurveyId, 6));
  const count = random.int(3, 40);
  const respondents: GeneratedRecontactRespondent[] = [];
  const seen = new Set<string>();
  while (respondents.length < count) {
    const pid = `pid-${survey.SurveyId}-${random.int(0, 0xffffff).toString(16).padStart(6, "0")}`;
    if (seen.has(pid)) continue;
    seen.add(pid);
    respondents.push({ PID: pid, IsActive: !random.chance(0.2) });
  }
  return respondents;
}
