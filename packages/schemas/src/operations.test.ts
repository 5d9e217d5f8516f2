import { describe, expect, it } from "vitest";
import { recordedExchanges, recordedVariants } from "../test/recorded/recorded-exchanges.ts";
import { expandPath, operationIds, operations } from "./index.ts";

describe("operations", () => {
  it("lists the five documented operations at the spec's paths", () => {
    const documented = operationIds
      .filter((id) => operations[id].evidence === "documented")
      .map((id) => `${operations[id].method} ${operations[id].path}`);
    expect(documented).toEqual([
      "GET /supplier-account",
      "PUT /supplier-account/{SupplierId}/redirect-url",
      "PUT /supplier-account/{SupplierId}/s2s-redirect-url",
      "GET /surveys",
      "GET /survey-qualifications/{surveyId}",
    ]);
  });

  it("covers the four further survey operations and all nine reference collections", () => {
    expect(operationIds).toHaveLength(5 + 4 + 9);
    expect(new Set(operationIds.map((id) => `${operations[id].method} ${operations[id].path}`)).size).toBe(
      operationIds.length,
    );
  });

  it("names every path placeholder among the path parameters", () => {
    for (const id of operationIds) {
      const placeholders = [...operations[id].path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(placeholders).toEqual([...operations[id].pathParams]);
    }
  });
});

describe("the operations table against recorded exchanges", () => {
  it.each(recordedExchanges.map((recorded) => [recorded.request, recorded] as const))(
    "sends %s where the spec or an integration shows it",
    (_request, recorded) => {
      const operation = operations[recorded.operation];
      expect(`${operation.method} ${expandPath(operation.path, recorded.pathParams)}`).toBe(recorded.request);
    },
  );

  it.each(
    [...recordedExchanges, ...recordedVariants]
      .filter((recorded) => recorded.body !== undefined)
      .map((recorded) => [recorded.source, recorded] as const),
  )("parses the body recorded in %s", (_source, recorded) => {
    const result = operations[recorded.operation].response.safeParse(recorded.body);
    expect(result.error?.issues).toBeUndefined();
    expect(result.data).toEqual(recorded.body);
  });

  it("records every documented and observed operation, and no guessed one", () => {
    const recorded = new Set(recordedExchanges.map((exchange) => exchange.operation));
    const known = operationIds.filter((id) => operations[id].evidence !== "guessed");
    expect([...recorded].sort()).toEqual([...known].sort());
  });
});

describe("expandPath", () => {
  it("fills placeholders and percent-encodes values", () => {
    expect(expandPath(operations.getQualificationDetail.path, { languageId: 3, qualificationId: 9 })).toBe(
      "/collection/languages/3/qualifications/9",
    );
    expect(expandPath(operations.updateRedirectUrls.path, { SupplierId: "a/b c" })).toBe(
      "/supplier-account/a%2Fb%20c/redirect-url",
    );
  });

  it("refuses to build a path with a parameter missing", () => {
    expect(() => expandPath(operations.getSurveyQualifications.path, {})).toThrow(/surveyId/);
  });
});
