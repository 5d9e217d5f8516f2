import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type * as Sds from "@sds/client";
import ts from "typescript";
import { describe, expect, expectTypeOf, it } from "vitest";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Types of @sds/schemas that no call takes or returns, so @sds/client leaves them to
 * @sds/schemas: its parsing helpers' own types, the operations table's and the shared HTTP
 * router's (used by servers: the fake and sds-sync).
 */
const notPartOfAnyCall = new Set([
  "Device",
  "ItemwiseOptions",
  "ItemwiseResult",
  "OperationDefinition",
  "OperationEvidence",
  "RouteDefinition",
  "RouteMatch",
  "Router",
  "SurveyDates",
  "SurveyNumbers",
  "UrlSettingsUrlField",
]);

/** The exports of `file` that name a type, each with the declaration it resolves to. */
function typeExports(program: ts.Program, file: string): Map<string, ts.Symbol> {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (moduleSymbol === undefined) throw new Error(`${file} is not in the program`);
  const types = new Map<string, ts.Symbol>();
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    if (target.flags & ts.SymbolFlags.Type) types.set(symbol.name, target);
  }
  return types;
}

describe("the types of @sds/client's calls", () => {
  it("are all exported by @sds/client itself, so a consumer needs no direct @sds/schemas dependency", () => {
    const config = ts.getParsedCommandLineOfConfigFile(join(packageRoot, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
    if (config === undefined) throw new Error("tsconfig.json could not be read");
    const clientEntry = join(packageRoot, "src", "index.ts");
    const schemasEntry = join(packageRoot, "..", "schemas", "src", "index.ts");
    const program = ts.createProgram({ rootNames: [clientEntry, schemasEntry], options: config.options });
    const fromSchemas = typeExports(program, schemasEntry);
    const fromClient = typeExports(program, clientEntry);

    const missing = [...fromSchemas.keys()].filter((name) => !notPartOfAnyCall.has(name) && !fromClient.has(name));
    expect(missing).toEqual([]);
    const different = [...fromSchemas].filter(([name, symbol]) => fromClient.has(name) && fromClient.get(name) !== symbol).map(([name]) => name);
    expect(different).toEqual([]);
    // The exceptions stay true: each is a type of @sds/schemas that the client does not export.
    expect([...notPartOfAnyCall].filter((name) => !fromSchemas.has(name) || fromClient.has(name))).toEqual([]);
  }, 60_000);

  it("name what each call resolves to and takes (checked by tsc in typecheck)", () => {
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
    expectTypeOf<Result<Client["surveys"]["qualifications"]>["Qualifications"][number]>().toEqualTypeOf<Sds.SurveyQualification>();
    expectTypeOf<Result<Client["surveys"]["quotas"]>>().toEqualTypeOf<Sds.SurveyQuotasResponse>();
    expectTypeOf<Result<Client["surveys"]["quotas"]>["Quotas"][number]>().toEqualTypeOf<Sds.SurveyQuota>();
    expectTypeOf<Result<Client["surveys"]["stats"]>>().toEqualTypeOf<Sds.SurveyStatsResponse>();
    expectTypeOf<Result<Client["surveys"]["groups"]>>().toEqualTypeOf<Sds.SurveyGroupsResponse>();
    expectTypeOf<Result<Client["recontacts"]["list"]>>().toEqualTypeOf<Sds.RecontactRespondentsResponse>();
    expectTypeOf<Result<Client["collections"]["languages"]>>().toEqualTypeOf<Sds.LanguagesResponse>();
    expectTypeOf<Result<Client["collections"]["industries"]>>().toEqualTypeOf<Sds.IndustriesResponse>();
    expectTypeOf<Result<Client["collections"]["studyTypes"]>>().toEqualTypeOf<Sds.StudyTypesResponse>();
    expectTypeOf<Result<Client["collections"]["surveyStatuses"]>>().toEqualTypeOf<Sds.SurveyStatusesResponse>();
    expectTypeOf<Result<Client["collections"]["qualificationCategories"]>>().toEqualTypeOf<Sds.QualificationCategoriesResponse>();
    expectTypeOf<Result<Client["collections"]["qualificationCategoryTypes"]>>().toEqualTypeOf<Sds.QualificationCategoryTypesResponse>();
    expectTypeOf<Result<Client["collections"]["qualificationTypes"]>>().toEqualTypeOf<Sds.QualificationTypesResponse>();
    expectTypeOf<Result<Client["collections"]["qualifications"]>>().toEqualTypeOf<Sds.QualificationsResponse>();
    expectTypeOf<Result<Client["collections"]["qualificationDetail"]>>().toEqualTypeOf<Sds.QualificationDetailResponse>();
    expectTypeOf<Sds.ResponseInfo["operation"]>().toEqualTypeOf<Sds.OperationId>();
  });
});
