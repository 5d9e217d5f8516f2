import type { SurveyQualification } from "@sds/schemas";
import { meetsQualifications } from "../simulation/session-simulation.ts";

/**
 * What the marketplace knows of respondents' true answers (told through
 * `FakeMarketplace.tellAnswers` or `PUT /__sandbox/respondents/{uid}/answers`), by uid: a respondent whose answers miss a survey's
 * qualifications is screened out (a terminate) instead of drawing an outcome. A map, so a uid
 * named `constructor` is just a name.
 */
export class RespondentAnswers {
  readonly #answers = new Map<string, Readonly<Record<string, readonly string[]>>>();

  /** Keeps a respondent's true answers (`QualificationId` as a string → option codes), replacing earlier ones. */
  tell(uid: string, answers: Readonly<Record<string, readonly string[]>>): void {
    this.#answers.set(uid, { ...answers });
  }

  /** The true answers told for `uid`, if any. */
  get(uid: string): Readonly<Record<string, readonly string[]>> | undefined {
    return this.#answers.get(uid);
  }

  /** `terminate` when the respondent's true answers are known and miss a qualification; else undefined (the outcome is drawn as before). */
  screenOut(uid: string, qualifications: readonly SurveyQualification[] | undefined): "terminate" | undefined {
    const answers = this.#answers.get(uid);
    if (answers === undefined || qualifications === undefined) return undefined;
    return meetsQualifications(answers, qualifications) ? undefined : "terminate";
  }
}
