import { createClient, type SdsClient } from "@sds/client";
import type { OperationId, UrlSettingsBody } from "@sds/schemas";
import { describe, expect, it } from "vitest";
// Recorded by hand from the spec and public integrations; imported by path because the
// schemas package (which owns them) cannot depend on the client or the fake.
import { recordedExchanges, type RecordedExchange } from "../../schemas/test/recorded/recorded-exchanges.ts";

const baseUrl = "http://recorded.test/api/v1";

/** One client call per recorded operation, with the ids of the record. */
const callers: Partial<Record<OperationId, (sds: SdsClient, recorded: RecordedExchange) => Promise<unknown>>> = {
  getSupplierAccount: (sds) => sds.account.get(),
  updateRedirectUrls: (sds, { pathParams, requestBody }) =>
    sds.account.updateRedirectUrls(String(pathParams.SupplierId), requestBody as UrlSettingsBody),
  updateS2SRedirectUrls: (sds, { pathParams, requestBody }) =>
    sds.account.updateS2SRedirectUrls(String(pathParams.SupplierId), requestBody as UrlSettingsBody),
  listSurveys: (sds) => sds.surveys.list(),
  getSurveyQualifications: (sds, { pathParams }) => sds.surveys.qualifications(Number(pathParams.surveyId)),
  getSurveyQuotas: (sds, { pathParams }) => sds.surveys.quotas(Number(pathParams.surveyId)),
  listLanguages: (sds) => sds.collections.languages(),
  listIndustries: (sds) => sds.collections.industries(),
  listStudyTypes: (sds) => sds.collections.studyTypes(),
  listQualifications: (sds) => sds.collections.qualifications(),
  getQualificationDetail: (sds, { pathParams }) =>
    sds.collections.qualificationDetail(Number(pathParams.languageId), Number(pathParams.qualificationId)),
};

/** A body for a record whose source shows the path only: the path is what is under test. */
const bodyOf = (recorded: RecordedExchange): Readonly<Record<string, unknown>> =>
  recorded.body ?? { Qualifications: [] };

/** Answers the recorded request line with the recorded body and everything else with 404, logging each request. */
function recordedServer(recorded: RecordedExchange): {
  fetch: (request: Request) => Promise<Response>;
  seen: string[];
  bodies: unknown[];
} {
  const seen: string[] = [];
  const bodies: unknown[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const line = `${request.method} ${url.pathname.slice(new URL(baseUrl).pathname.length)}${url.search}`;
    seen.push(line);
    if (request.method === "PUT") bodies.push(await request.json());
    if (line !== recorded.request)
      return Response.json(
        { status: "error", hasError: true, messages: [`no route for ${line}`], error: { errorCode: "NOT_FOUND" } },
        { status: 404 },
      );
    return Response.json(bodyOf(recorded));
  };
  return { fetch, seen, bodies };
}

describe("the client against recorded exchanges", () => {
  it("has a call for every recorded operation", () => {
    expect(
      recordedExchanges
        .filter((recorded) => callers[recorded.operation] === undefined)
        .map((recorded) => recorded.operation),
    ).toEqual([]);
  });

  it.each(recordedExchanges.map((recorded) => [recorded.request, recorded] as const))(
    "sends %s and returns the recorded body",
    async (_request, recorded) => {
      const server = recordedServer(recorded);
      const sds = createClient({ baseUrl, apiKey: "recorded-key", fetch: server.fetch, retry: false });
      const call = callers[recorded.operation];
      if (!call) throw new Error(`no client call for ${recorded.operation}`);
      const data = await call(sds, recorded);
      expect(server.seen).toEqual([recorded.request]);
      expect(data).toEqual(bodyOf(recorded));
      if (recorded.requestBody !== undefined) expect(server.bodies).toEqual([recorded.requestBody]);
    },
  );
});
