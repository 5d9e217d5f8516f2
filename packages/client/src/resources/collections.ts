import type {
  IndustriesResponse,
  LanguagesResponse,
  QualificationCategoriesResponse,
  QualificationCategoryTypesResponse,
  QualificationDetailResponse,
  QualificationsResponse,
  QualificationTypesResponse,
  StudyTypesResponse,
  SurveyStatusesResponse,
} from "@sds/schemas";
import type { ApiPromise } from "../api-promise.ts";
import type { RequestOptions } from "../client-options.ts";
import { operationParser } from "../internal/operation-parsers.ts";
import type { Transport } from "../internal/transport.ts";

/**
 * The reference collections (languages, industries, study types, …). None is documented by
 * the spec: paths and bodies follow what public integrations show, some are guesses, and every
 * path can be overridden with the client option `paths`. They change rarely: cache them
 * (integrations keep them about a day).
 */
export class Collections {
  readonly #transport: Transport;

  /** @internal Resources are created by the client: use `sds.collections`. */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Languages (`GET /collection/languages`, observed): `{ Id, Name, CountryCode }` each. */
  languages(options?: RequestOptions): ApiPromise<LanguagesResponse> {
    return this.#transport.request({ operation: "listLanguages", parse: operationParser("listLanguages") }, options);
  }

  /** Industries (`GET /collection/industries`, observed). */
  industries(options?: RequestOptions): ApiPromise<IndustriesResponse> {
    return this.#transport.request({ operation: "listIndustries", parse: operationParser("listIndustries") }, options);
  }

  /** Study types (`GET /collection/studytypes`, observed). */
  studyTypes(options?: RequestOptions): ApiPromise<StudyTypesResponse> {
    return this.#transport.request({ operation: "listStudyTypes", parse: operationParser("listStudyTypes") }, options);
  }

  /** Survey statuses (`GET /collection/surveystatuses`, guessed path). */
  surveyStatuses(options?: RequestOptions): ApiPromise<SurveyStatusesResponse> {
    return this.#transport.request(
      { operation: "listSurveyStatuses", parse: operationParser("listSurveyStatuses") },
      options,
    );
  }

  /** Qualification categories (`GET /collection/qualificationcategories`, guessed path). */
  qualificationCategories(options?: RequestOptions): ApiPromise<QualificationCategoriesResponse> {
    return this.#transport.request(
      { operation: "listQualificationCategories", parse: operationParser("listQualificationCategories") },
      options,
    );
  }

  /** Qualification category types (`GET /collection/qualificationcategorytypes`, guessed path). */
  qualificationCategoryTypes(options?: RequestOptions): ApiPromise<QualificationCategoryTypesResponse> {
    return this.#transport.request(
      { operation: "listQualificationCategoryTypes", parse: operationParser("listQualificationCategoryTypes") },
      options,
    );
  }

  /** Qualification types (`GET /collection/qualificationtypes`, guessed path). */
  qualificationTypes(options?: RequestOptions): ApiPromise<QualificationTypesResponse> {
    return this.#transport.request(
      { operation: "listQualificationTypes", parse: operationParser("listQualificationTypes") },
      options,
    );
  }

  /** The qualification catalogue (`GET /collection/qualifications`, observed path, body not seen). */
  qualifications(options?: RequestOptions): ApiPromise<QualificationsResponse> {
    return this.#transport.request(
      { operation: "listQualifications", parse: operationParser("listQualifications") },
      options,
    );
  }

  /**
   * One qualification question with its options, in one language
   * (`GET /collection/languages/{languageId}/qualifications/{qualificationId}`, observed).
   */
  qualificationDetail(
    languageId: number | string,
    qualificationId: number | string,
    options?: RequestOptions,
  ): ApiPromise<QualificationDetailResponse> {
    return this.#transport.request(
      {
        operation: "getQualificationDetail",
        pathParams: { languageId, qualificationId },
        parse: operationParser("getQualificationDetail"),
      },
      options,
    );
  }
}
