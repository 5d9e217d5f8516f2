import type { z } from "zod";
import { SupplierAccountResponse, UrlSettingsBody } from "./account.ts";
import {
  IndustriesResponse,
  LanguagesResponse,
  QualificationCategoriesResponse,
  QualificationCategoryTypesResponse,
  QualificationDetailResponse,
  QualificationsResponse,
  QualificationTypesResponse,
  StudyTypesResponse,
  SurveyStatusesResponse,
} from "./collections.ts";
import { UpdateResponse } from "./envelope.ts";
import { SurveyQualificationsResponse } from "./qualification.ts";
import { SurveyQuotasResponse } from "./quota.ts";
import { SurveyListResponse } from "./survey.ts";
import { RecontactRespondentsResponse, SurveyGroupsResponse, SurveyStatsResponse } from "./survey-extras.ts";

/**
 * How much is known of an operation: `documented` in the spec; `observed` in public
 * integrations (unverified); `guessed` from the pattern of the others (its path may be wrong,
 * so every client lets callers override it).
 */
export type OperationEvidence = "documented" | "observed" | "guessed";

/** One HTTP operation of the service: the single table the client, the fake and the OpenAPI document read. */
export interface OperationDefinition {
  /** The spec's name for it. */
  readonly name: string;
  readonly method: "GET" | "PUT";
  /** Relative to the base URL (which ends in `/api/v1`), with `{param}` placeholders. */
  readonly path: string;
  readonly pathParams: readonly string[];
  readonly body?: z.ZodType;
  readonly response: z.ZodType;
  readonly evidence: OperationEvidence;
}

const define = <const T extends OperationDefinition>(operation: T): T => operation;

/**
 * Every operation of the Supplier Data Service, keyed by a stable id.
 *
 * @example
 * ```ts
 * operations.listSurveys.path; // "/surveys"
 * ```
 */
export const operations = {
  getSupplierAccount: define({
    name: "Get Supplier Details",
    method: "GET",
    path: "/supplier-account",
    pathParams: [],
    response: SupplierAccountResponse,
    evidence: "documented",
  }),
  updateRedirectUrls: define({
    name: "Update redirect urls",
    method: "PUT",
    path: "/supplier-account/{SupplierId}/redirect-url",
    pathParams: ["SupplierId"],
    body: UrlSettingsBody,
    response: UpdateResponse,
    evidence: "documented",
  }),
  updateS2SRedirectUrls: define({
    name: "Update S2S redirect urls",
    method: "PUT",
    path: "/supplier-account/{SupplierId}/s2s-redirect-url",
    pathParams: ["SupplierId"],
    body: UrlSettingsBody,
    response: UpdateResponse,
    evidence: "documented",
  }),
  listSurveys: define({
    name: "Get Surveys",
    method: "GET",
    path: "/surveys",
    pathParams: [],
    response: SurveyListResponse,
    evidence: "documented",
  }),
  getSurveyQualifications: define({
    name: "Get Survey Qualifications",
    method: "GET",
    path: "/survey-qualifications/{surveyId}",
    pathParams: ["surveyId"],
    response: SurveyQualificationsResponse,
    evidence: "documented",
  }),
  getSurveyQuotas: define({
    name: "Get Survey Quotas",
    method: "GET",
    path: "/survey-quotas/{surveyId}",
    pathParams: ["surveyId"],
    response: SurveyQuotasResponse,
    evidence: "observed",
  }),
  getSurveyStats: define({
    name: "Get Survey Stats",
    method: "GET",
    path: "/survey-stats/{surveyId}",
    pathParams: ["surveyId"],
    response: SurveyStatsResponse,
    evidence: "guessed",
  }),
  getSurveyGroups: define({
    name: "Get Survey Groups",
    method: "GET",
    path: "/survey-groups/{surveyId}",
    pathParams: ["surveyId"],
    response: SurveyGroupsResponse,
    evidence: "guessed",
  }),
  listRecontactRespondents: define({
    name: "Get ReContact Respondents",
    method: "GET",
    path: "/recontact-respondents/{surveyId}",
    pathParams: ["surveyId"],
    response: RecontactRespondentsResponse,
    evidence: "guessed",
  }),
  listLanguages: define({
    name: "Languages",
    method: "GET",
    path: "/collection/languages",
    pathParams: [],
    response: LanguagesResponse,
    evidence: "observed",
  }),
  listIndustries: define({
    name: "Industries",
    method: "GET",
    path: "/collection/industries",
    pathParams: [],
    response: IndustriesResponse,
    evidence: "observed",
  }),
  listStudyTypes: define({
    name: "StudyTypes",
    method: "GET",
    path: "/collection/studytypes",
    pathParams: [],
    response: StudyTypesResponse,
    evidence: "observed",
  }),
  listSurveyStatuses: define({
    name: "SurveyStatuses",
    method: "GET",
    path: "/collection/surveystatuses",
    pathParams: [],
    response: SurveyStatusesResponse,
    evidence: "guessed",
  }),
  listQualificationCategories: define({
    name: "QualificationCategories",
    method: "GET",
    path: "/collection/qualificationcategories",
    pathParams: [],
    response: QualificationCategoriesResponse,
    evidence: "guessed",
  }),
  listQualificationCategoryTypes: define({
    name: "QualificationCategoryTypes",
    method: "GET",
    path: "/collection/qualificationcategorytypes",
    pathParams: [],
    response: QualificationCategoryTypesResponse,
    evidence: "guessed",
  }),
  listQualificationTypes: define({
    name: "QualificationTypes",
    method: "GET",
    path: "/collection/qualificationtypes",
    pathParams: [],
    response: QualificationTypesResponse,
    evidence: "guessed",
  }),
  listQualifications: define({
    name: "Qualifications",
    method: "GET",
    path: "/collection/qualifications",
    pathParams: [],
    response: QualificationsResponse,
    evidence: "observed",
  }),
  getQualificationDetail: define({
    name: "QualificationDetailById",
    method: "GET",
    path: "/collection/languages/{languageId}/qualifications/{qualificationId}",
    pathParams: ["languageId", "qualificationId"],
    response: QualificationDetailResponse,
    evidence: "observed",
  }),
} as const;

/** The id of one operation, such as `"listSurveys"`. */
export type OperationId = keyof typeof operations;

/** Every operation id, in the order of {@link operations}. */
export const operationIds = Object.keys(operations) as OperationId[];

/**
 * Fills the `{param}` placeholders of a path, percent-encoding each value.
 *
 * @example
 * ```ts
 * expandPath("/survey-qualifications/{surveyId}", { surveyId: 42 }); // "/survey-qualifications/42"
 * ```
 */
export function expandPath(path: string, params: Readonly<Record<string, string | number>>): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`missing path parameter "${name}" for ${path}`);
    return encodeURIComponent(String(value));
  });
}
