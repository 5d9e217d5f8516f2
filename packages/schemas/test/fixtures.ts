// Hand-written wire records for the schema tests: exactly what the spec shows, nothing generated.
import type { SupplierAccountResponse, Survey, SurveyListResponse, UrlSettingsBody } from "../src/index.ts";

export const validSurvey: Survey = {
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
  IndustryId: 4,
  CollectPii: false,
  BuyerId: 77,
  StartDate: "2026-11-01T00:00:00Z",
  EndDate: "2026-12-31T23:59:59Z",
  Qual_LastUpdatedOnUTC: "2026-11-19T10:00:00Z",
  Quota_LastUpdatedOnUTC: "2026-11-18T10:00:00Z",
  Revenue: 2.5,
  IncidentRate: 35,
  LengthOfInterview: 12,
};

export const surveyList = (surveys: unknown[]): SurveyListResponse =>
  ({
    status: "ok",
    hasError: false,
    messages: [],
    error: { errorCode: "" },
    SupplierId: 12,
    Surveys: surveys,
  }) as SurveyListResponse;

export const validUrls: UrlSettingsBody = {
  Enabled: true,
  CompleteUrl: "https://panel.example/complete?rid=[%RID%]",
  TerminateUrl: "https://panel.example/terminate?rid={rid}",
  OverQuotaUrl: "http://panel.example/overquota?rid=[%RID%]&s=[%SID%]",
  SecurityTerminateUrl: "https://panel.example:8443/security",
};

export const accountResponse: SupplierAccountResponse = {
  status: "ok",
  hasError: false,
  messages: [],
  error: { errorCode: "" },
  data: {
    Id: "12",
    Name: "Acme Panel",
    Active: true,
    IncomingEncryption: {
      Enabled: true,
      Algorithm: "SHA256",
      QueryParameter: "hash",
      EncryptionKey: "in-secret-key-123",
    },
    OutgoingEncryption: { Enabled: false, Algorithm: "SHA1", QueryParameter: null, EncryptionKey: null },
    RedirectUrls: validUrls,
    S2SUrls: { ...validUrls, Enabled: false },
  },
};
