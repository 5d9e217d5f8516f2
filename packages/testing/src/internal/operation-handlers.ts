import { UrlSettingsBody, type OperationId } from "@sds/schemas";
import { fakeErrorCodes } from "../fake/constants.ts";
import {
  industries,
  qualificationCategories,
  qualificationCategoryTypes,
  qualificationTypes,
  studyTypes,
  surveyStatuses,
} from "../fixtures/collections.ts";
import { languages } from "../fixtures/languages.ts";
import { qualificationCatalogue } from "../fixtures/qualification-catalogue.ts";
import { qualificationDetail } from "../fixtures/qualification-detail.ts";
import { confirmationBody, errorResponse, jsonResponse, okBody, okBodyFromJson } from "./envelope.ts";
import { readJsonBody } from "./request-body.ts";
import type { Store } from "./store.ts";
import type { SurveyEntry } from "./survey-entry.ts";

/** What an operation handler gets: the authenticated supplier and its already checked integer path parameters. */
export interface OperationContext {
  readonly request: Request;
  readonly store: Store;
  readonly supplierId: number;
  readonly ids: Readonly<Record<string, number>>;
  readonly maxBodyBytes: number;
}

type Handler = (context: OperationContext) => Response | Promise<Response>;

/** The confirmation each update answers with: exactly one message (Rule 3). */
export const confirmations = {
  updateRedirectUrls: "Redirect URL configuration updated successfully.",
  updateS2SRedirectUrls: "S2S redirect URL configuration updated successfully.",
} as const;

// The catalogue as a collection lists questions without their options; options come by id.
const catalogueRecords = qualificationCatalogue.map(({ Options: _options, ...question }) => question);

/** Collection bodies never change, so they are serialized once. */
const collectionBodies = {
  listLanguages: okBody({ Languages: languages }),
  listIndustries: okBody({ Industries: industries }),
  listStudyTypes: okBody({ StudyTypes: studyTypes }),
  listSurveyStatuses: okBody({ SurveyStatuses: surveyStatuses }),
  listQualificationCategories: okBody({ QualificationCategories: qualificationCategories }),
  listQualificationCategoryTypes: okBody({ QualificationCategoryTypes: qualificationCategoryTypes }),
  listQualificationTypes: okBody({ QualificationTypes: qualificationTypes }),
  listQualifications: okBody({ Qualifications: catalogueRecords }),
};

function ok(body: string): Response {
  return jsonResponse(200, body);
}

/** Runs `serve` with the caller's survey named by `surveyId`, or answers 404. */
function withSurvey(serve: (entry: SurveyEntry, context: OperationContext) => Response): Handler {
  return (context) => {
    const surveyId = context.ids.surveyId as number;
    const entry = context.store.ownedSurvey(context.supplierId, surveyId);
    if (!entry) return errorResponse(404, fakeErrorCodes.surveyNotFound, [`Survey ${surveyId} was not found.`]);
    return serve(entry, context);
  };
}

function updateUrls(field: "RedirectUrls" | "S2SUrls", confirmation: string): Handler {
  return async ({ request, store, supplierId, maxBodyBytes }) => {
    const body = await readJsonBody(request, UrlSettingsBody, maxBodyBytes);
    if (!body.ok) return errorResponse(400, body.errorCode, body.messages);
    store.replaceUrlSettings(supplierId, field, body.value);
    return ok(confirmationBody(confirmation));
  };
}

/** One handler per operation of the `operations` table; the record type makes a missing one a type error. */
export const operationHandlers: Readonly<Record<OperationId, Handler>> = {
  getSupplierAccount: ({ store, supplierId }) => ok(okBody({ data: store.account(supplierId) })),
  updateRedirectUrls: updateUrls("RedirectUrls", confirmations.updateRedirectUrls),
  updateS2SRedirectUrls: updateUrls("S2SUrls", confirmations.updateS2SRedirectUrls),
  listSurveys: ({ store, supplierId }) =>
    ok(okBodyFromJson({ Surveys: store.liveSurveysJson(supplierId), SupplierId: String(supplierId) })),
  getSurveyQualifications: withSurvey((entry, { store }) =>
    ok(okBody({ Qualifications: store.details(entry).qualifications, SurveyId: entry.survey.SurveyId })),
  ),
  getSurveyQuotas: withSurvey((entry, { store }) =>
    ok(okBody({ Quotas: store.details(entry).quotas, SurveyId: entry.survey.SurveyId })),
  ),
  // The three undocumented per-survey bodies (README, Assumptions 16): Lucid's fields, the SDS's envelope and list names.
  getSurveyStats: withSurvey((entry, { store }) =>
    ok(okBody({ SurveyId: entry.survey.SurveyId, Stats: store.statsOf(entry) })),
  ),
  getSurveyGroups: withSurvey((entry, { store }) =>
    ok(okBody({ SurveyId: entry.survey.SurveyId, SurveyGroups: store.surveyGroupsOf(entry.survey.SurveyId) })),
  ),
  // A survey of another study type answers an empty list, not 404: it exists, it merely admits anyone.
  listRecontactRespondents: withSurvey((entry, { store }) =>
    ok(okBody({ SurveyId: entry.survey.SurveyId, Respondents: store.recontactsOf(entry) })),
  ),
  listLanguages: () => ok(collectionBodies.listLanguages),
  listIndustries: () => ok(collectionBodies.listIndustries),
  listStudyTypes: () => ok(collectionBodies.listStudyTypes),
  listSurveyStatuses: () => ok(collectionBodies.listSurveyStatuses),
  listQualificationCategories: () => ok(collectionBodies.listQualificationCategories),
  listQualificationCategoryTypes: () => ok(collectionBodies.listQualificationCategoryTypes),
  listQualificationTypes: () => ok(collectionBodies.listQualificationTypes),
  listQualifications: () => ok(collectionBodies.listQualifications),
  getQualificationDetail: ({ ids }) => {
    const languageId = ids.languageId as number;
    const qualificationId = ids.qualificationId as number;
    const detail = qualificationDetail(languageId, qualificationId);
    if (!detail) {
      return errorResponse(404, fakeErrorCodes.resourceNotFound, [
        `No qualification ${qualificationId} in language ${languageId}.`,
      ]);
    }
    return ok(okBody({ Qualification: detail }));
  },
};
