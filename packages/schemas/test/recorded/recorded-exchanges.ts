// Request lines and response bodies as the spec and public integrations show them, typed in by
// hand from /work/shared/spec (supplier-data-service.md, observed-endpoints.md). They are the
// outside witness for the operations table: every path here is a literal string, never built
// from `operations`, so a wrong path guessed in the table fails the tests of the schemas, the
// client and the fake. Operations whose path is only a guess (stats, groups, re-contacts,
// survey statuses, qualification categories, category types, types) have no record: a record
// of a guess would only copy the table.
import type { OperationId } from "../../src/index.ts";

/** One request as an integration sends it and the body it was answered with. */
export interface RecordedExchange {
  readonly operation: OperationId;
  /** `METHOD /path` relative to the base URL (which ends in `/api/v1`), with concrete ids. */
  readonly request: string;
  /** The concrete value of each path placeholder in `request`. */
  readonly pathParams: Readonly<Record<string, string | number>>;
  readonly requestBody?: unknown;
  /** The body as shown; absent when the source shows the path but no body. */
  readonly body?: Readonly<Record<string, unknown>>;
  /** Where the path and the body come from. */
  readonly source: string;
}

const urlSettings = {
  Enabled: true,
  CompleteUrl: "https://panel.example/complete?rid=[%RID%]",
  TerminateUrl: "https://panel.example/terminate?rid=[%RID%]",
  OverQuotaUrl: "https://panel.example/overquota?rid=[%RID%]",
  SecurityTerminateUrl: "https://panel.example/security?rid=[%RID%]",
};

const envelope = { status: "ok", hasError: false, messages: [], error: { errorCode: "" } };

/** Every recorded exchange, at most one per operation. */
export const recordedExchanges: readonly RecordedExchange[] = [
  {
    operation: "getSupplierAccount",
    request: "GET /supplier-account",
    pathParams: {},
    body: {
      ...envelope,
      data: {
        Id: "12",
        Name: "Acme Panel",
        Active: true,
        IncomingEncryption: {
          Enabled: true,
          Algorithm: "SHA256",
          QueryParameter: "hash",
          EncryptionKey: "<ENCRYPTION_KEY>",
        },
        OutgoingEncryption: { Enabled: false, Algorithm: "SHA1", QueryParameter: null, EncryptionKey: null },
        RedirectUrls: urlSettings,
        S2SUrls: { ...urlSettings, Enabled: false },
      },
    },
    source: "supplier-data-service.md, Endpoints (path) and Supplier account response (fields; values illustrative)",
  },
  {
    operation: "updateRedirectUrls",
    request: "PUT /supplier-account/12/redirect-url",
    pathParams: { SupplierId: "12" },
    requestBody: urlSettings,
    body: { ...envelope, messages: ["Redirect URL configuration updated."] },
    source: "supplier-data-service.md, Endpoints: Update redirect urls (envelope only, one confirmation message)",
  },
  {
    operation: "updateS2SRedirectUrls",
    request: "PUT /supplier-account/12/s2s-redirect-url",
    pathParams: { SupplierId: "12" },
    requestBody: urlSettings,
    body: { ...envelope, messages: ["S2S redirect URL configuration updated."] },
    source: "supplier-data-service.md, Endpoints: Update S2S redirect urls (envelope only, one confirmation message)",
  },
  {
    operation: "listSurveys",
    request: "GET /surveys",
    pathParams: {},
    body: {
      ...envelope,
      SupplierId: 12,
      Surveys: [
        {
          SurveyId: 1001,
          Name: "Grocery habits",
          Cpi: "2.50",
          Ir: "35",
          Loi: "12",
          StudyTypeId: 1,
          Completes: 40,
          LanguageId: 3,
          SurveyUrl: "https://surveys.example/s/1001?rid=[%RID%]",
          DesktopAllowed: true,
          MobileAllowed: true,
          TabletAllowed: false,
          LastUpdatedOnUTC: "2026-11-20T08:15:30.123Z",
          Has_Qualifications: true,
          Has_Quotas: true,
          Has_Survey_Groups: false,
          IndustryId: 1,
          CollectPii: false,
          BuyerId: 77,
          StartDate: "2026-11-01T00:00:00Z",
          EndDate: "2026-12-31T23:59:59Z",
          Qual_LastUpdatedOnUTC: "2026-11-19T10:00:00Z",
          Quota_LastUpdatedOnUTC: "2026-11-18T10:00:00Z",
          Revenue: 2.5,
          IncidentRate: 35,
          LengthOfInterview: 12,
        },
      ],
    },
    source: "supplier-data-service.md, Endpoints (path), Survey and Survey list response (fields; values illustrative)",
  },
  {
    operation: "getSurveyQualifications",
    request: "GET /survey-qualifications/1001",
    pathParams: { surveyId: 1001 },
    body: {
      ...envelope,
      SurveyId: 1001,
      Qualifications: [
        {
          SurveyId: 1001,
          LastUpdatedOnUTC: "2026-11-19T10:00:00Z",
          QualificationId: 9,
          QualificationTypeId: 1,
          OptionIds: [901, 902],
          OptionCodes: ["1", "2"],
        },
      ],
    },
    source:
      "supplier-data-service.md, Endpoints (path), Qualification and Survey qualifications response (fields; values illustrative)",
  },
  {
    operation: "getSurveyQuotas",
    request: "GET /survey-quotas/1001",
    pathParams: { surveyId: 1001 },
    body: { hasError: false, Quotas: [{ QuotaId: 7, Conditions: [] }] },
    source: "observed-endpoints.md, Paths and bodies seen: Get Survey Quotas",
  },
  {
    operation: "listLanguages",
    request: "GET /collection/languages",
    pathParams: {},
    body: { status: "ok", hasError: false, Languages: [{ Id: 3, Name: "English - United States", CountryCode: "US" }] },
    source: "observed-endpoints.md, Paths and bodies seen: Languages",
  },
  {
    operation: "listIndustries",
    request: "GET /collection/industries",
    pathParams: {},
    body: { Industries: [{ Id: 1, Name: "Technology" }] },
    source: "observed-endpoints.md, Paths and bodies seen: Industries",
  },
  {
    operation: "listStudyTypes",
    request: "GET /collection/studytypes",
    pathParams: {},
    body: { StudyTypes: [{ Id: 1, Name: "Online Survey" }] },
    source: "observed-endpoints.md, Paths and bodies seen: StudyTypes",
  },
  {
    operation: "listQualifications",
    request: "GET /collection/qualifications",
    pathParams: {},
    source: "observed-endpoints.md, Paths and bodies seen: Qualifications (catalog); body not seen",
  },
  {
    operation: "getQualificationDetail",
    request: "GET /collection/languages/3/qualifications/9",
    pathParams: { languageId: 3, qualificationId: 9 },
    body: {
      hasError: false,
      Qualification: {
        Id: 9,
        Code: "Gender",
        QuestionText: "What is your gender?",
        TypeName: "Single",
        Options: [
          { OptionCode: 1, OptionText: "Male" },
          { OptionCode: 2, OptionText: "Female" },
        ],
      },
    },
    source: "observed-endpoints.md, Paths and bodies seen: QualificationDetailById",
  },
];

/** Bodies seen besides the main record of an operation. */
export const recordedVariants: readonly RecordedExchange[] = [
  {
    operation: "listLanguages",
    request: "GET /collection/languages",
    pathParams: {},
    body: {
      status: "ok",
      hasError: false,
      Languages: [{ Id: "3", Name: "English - United States", CountryCode: "US" }],
    },
    source: "observed-endpoints.md, Paths and bodies seen: Languages (one integration saw Id as a string)",
  },
];
