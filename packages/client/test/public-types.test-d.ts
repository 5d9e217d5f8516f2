// Checked by the type checker only: Vitest's typecheck mode (the `typecheck` block of
// vitest.config.ts) runs tsc over this file in `pnpm test`, and a wrong type fails that run.
import type * as Sds from "@sds/client";
import { describe, expectTypeOf, it } from "vitest";

describe("the types of @sds/client's calls", () => {
  it("name what each call resolves to and takes", () => {
    type Result<Method extends (...args: never[]) => unknown> = Awaited<ReturnType<Method>>;
    type Client = Sds.SdsClient;
    expectTypeOf<Result<Client["account"]["get"]>>().toEqualTypeOf<Sds.SupplierAccountResponse>();
    expectTypeOf<Result<Client["account"]["get"]>["data"]>().toEqualTypeOf<Sds.SupplierAccount>();
    expectTypeOf<Result<Client["account"]["updateRedirectUrls"]>>().toEqualTypeOf<Sds.UpdateResponse>();
    expectTypeOf<Client["account"]["updateS2SRedirectUrls"]>().parameter(1).toEqualTypeOf<Sds.UrlSettingsBody>();
    expectTypeOf<Result<Client["surveys"]["list"]>>().toEqualTypeOf<Sds.SurveyListResponse>();
    expectTypeOf<Result<Client["surveys"]["list"]>["Surveys"][number]>().toEqualTypeOf<Sds.Survey>();
    expectTypeOf<Result<Client["surveys"]["listItemwise"]>["invalid"][number]>().toEqualTypeOf<Sds.InvalidItem>();
    expectTypeOf<Result<Client["surveys"]["qualifications"]>>().toEqualTypeOf<Sds.SurveyQualificationsResponse>();
    expectTypeOf<
      Result<Client["surveys"]["qualifications"]>["Qualifications"][number]
    >().toEqualTypeOf<Sds.SurveyQualification>();
    expectTypeOf<Result<Client["surveys"]["quotas"]>>().toEqualTypeOf<Sds.SurveyQuotasResponse>();
    expectTypeOf<Result<Client["surveys"]["quotas"]>["Quotas"][number]>().toEqualTypeOf<Sds.SurveyQuota>();
    expectTypeOf<Result<Client["surveys"]["stats"]>>().toEqualTypeOf<Sds.SurveyStatsResponse>();
    expectTypeOf<Result<Client["surveys"]["groups"]>>().toEqualTypeOf<Sds.SurveyGroupsResponse>();
    expectTypeOf<Result<Client["recontacts"]["list"]>>().toEqualTypeOf<Sds.RecontactRespondentsResponse>();
    expectTypeOf<Result<Client["collections"]["languages"]>>().toEqualTypeOf<Sds.LanguagesResponse>();
    expectTypeOf<Result<Client["collections"]["industries"]>>().toEqualTypeOf<Sds.IndustriesResponse>();
    expectTypeOf<Result<Client["collections"]["studyTypes"]>>().toEqualTypeOf<Sds.StudyTypesResponse>();
    expectTypeOf<Result<Client["collections"]["surveyStatuses"]>>().toEqualTypeOf<Sds.SurveyStatusesResponse>();
    expectTypeOf<
      Result<Client["collections"]["qualificationCategories"]>
    >().toEqualTypeOf<Sds.QualificationCategoriesResponse>();
    expectTypeOf<
      Result<Client["collections"]["qualificationCategoryTypes"]>
    >().toEqualTypeOf<Sds.QualificationCategoryTypesResponse>();
    expectTypeOf<Result<Client["collections"]["qualificationTypes"]>>().toEqualTypeOf<Sds.QualificationTypesResponse>();
    expectTypeOf<Result<Client["collections"]["qualifications"]>>().toEqualTypeOf<Sds.QualificationsResponse>();
    expectTypeOf<
      Result<Client["collections"]["qualificationDetail"]>
    >().toEqualTypeOf<Sds.QualificationDetailResponse>();
    expectTypeOf<Sds.ResponseInfo["operation"]>().toEqualTypeOf<Sds.OperationId>();
  });

  it("give every error of a request its context, typed as set", () => {
    expectTypeOf<Sds.RequestError["operation"]>().toEqualTypeOf<Sds.OperationId>();
    expectTypeOf<Sds.RequestError["attempts"]>().toEqualTypeOf<number>();
    expectTypeOf<Sds.SdsError["attempts"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Sds.ApiError>().toExtend<Sds.RequestError>();
    expectTypeOf<Sds.TimeoutError>().toExtend<Sds.RequestError>();
    expectTypeOf<Sds.ConfigurationError>().not.toExtend<Sds.RequestError>();
    expectTypeOf<Sds.ConnectionError["name"]>().toEqualTypeOf<"ConnectionError">();
  });
});
