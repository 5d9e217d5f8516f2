import {
  createFakeSupplierApi,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  type FakeSupplierApi,
  type SurveyInit,
} from "@sds/testing";
import { unsignedOutcomes } from "./loop-traffic.ts";

/** One screening question of a loop test survey: its id and the answer codes that qualify. */
export interface Screening {
  readonly question: number;
  readonly codes: readonly string[];
}

/**
 * A live survey for the respondent-loop tests: shown on desktop and mobile, in language 1,
 * without quotas, and screened on one question when `screening` is given (else open to all).
 * `fields` come last, so a test can override any of these.
 *
 * @example
 * ```ts
 * screenedSurvey({ SurveyId: 7001, Cpi: "4.00", Ir: "50" }, { question: 43, codes: ["1"] });
 * ```
 */
export function screenedSurvey(fields: NonNullable<SurveyInit["survey"]>, screening?: Screening): SurveyInit {
  return {
    survey: {
      LanguageId: 1,
      DesktopAllowed: true,
      MobileAllowed: true,
      TabletAllowed: true,
      Has_Quotas: false,
      Has_Qualifications: screening !== undefined,
      ...fields,
    },
    qualifications:
      screening === undefined
        ? []
        : [
            {
              QualificationId: screening.question,
              QualificationTypeId: 1,
              OptionIds: screening.codes.map(Number),
              OptionCodes: [...screening.codes],
            },
          ],
  };
}

/**
 * A survey the respondent-loop tests route to: {@link screenedSurvey} (open to all) with Ir 50, a
 * SurveyUrl whose `[%RID%]` takes the token, no survey groups and study type 1; `fields` override.
 *
 * @example
 * ```ts
 * loopSurvey(9101, { Cpi: "4.00", Has_Survey_Groups: true });
 * ```
 */
export function loopSurvey(id: number, fields: Partial<NonNullable<SurveyInit["survey"]>> = {}): SurveyInit {
  return screenedSurvey({
    SurveyId: id,
    Ir: "50",
    SurveyUrl: `https://survey.example.com/s/${id}?rid=[%RID%]`,
    Has_Survey_Groups: false,
    StudyTypeId: 1,
    ...fields,
  });
}

/** The fake with one supplier holding `surveys`, its outcomes unsigned (the receiver checks no signature). */
export function loopFake(surveys: readonly SurveyInit[]): FakeSupplierApi {
  return createFakeSupplierApi({
    suppliers: [
      {
        supplierId: DEFAULT_SUPPLIER_ID,
        apiKey: DEFAULT_API_KEY,
        surveys: [...surveys],
        account: { OutgoingEncryption: unsignedOutcomes },
      },
    ],
  });
}
