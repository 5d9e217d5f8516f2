import { describe, expect, it } from "vitest";
import { countingFetch, operationMatcher } from "./counting-fetch.ts";

describe("operationMatcher", () => {
  const operationOf = operationMatcher();

  it("names the operation of a request URL, whatever follows or precedes its path", () => {
    expect(operationOf("GET", "http://127.0.0.1:8080/api/v1/surveys")).toBe("listSurveys");
    expect(operationOf("get", "https://sds.example/api/v1/surveys/?hasError=false#top")).toBe("listSurveys");
    expect(operationOf("GET", "http://127.0.0.1:8080/survey-qualifications/100001?x=/surveys")).toBe(
      "getSurveyQualifications",
    );
    expect(operationOf("GET", "http://user:secret@host:1/base/survey-quotas/7")).toBe("getSurveyQuotas");
  });

  it("reads unusual URLs as the URL parser does", () => {
    expect(operationOf("GET", "http://host/other/../surveys")).toBe("listSurveys");
    expect(operationOf("GET", "http://host\\surveys")).toBe("listSurveys");
    expect(operationOf("GET", "HTTP://HOST/surveys")).toBe("listSurveys");
    expect(operationOf("GET", "http://host?/surveys")).toBe("unknown");
    expect(operationOf("GET", "http://host")).toBe("unknown");
  });

  it("does not name a path or method no operation has", () => {
    expect(operationOf("GET", "http://host/surveys/extra")).toBe("unknown");
    expect(operationOf("DELETE", "http://host/surveys")).toBe("unknown");
  });

  it("names an overridden path by its operation, and no longer the default it replaces", () => {
    const overridden = operationMatcher({
      getSurveyGroups: "/v2/surveys/{surveyId}/groups",
      listRecontactRespondents: "/recontacts/{surveyId}/",
      listSurveys: "/inventory",
    });
    expect(overridden("GET", "https://sds.example/api/v1/v2/surveys/42/groups")).toBe("getSurveyGroups");
    expect(overridden("GET", "https://sds.example/api/v1/recontacts/42")).toBe("listRecontactRespondents");
    expect(overridden("GET", "https://sds.example/api/v1/recontacts/42/")).toBe("listRecontactRespondents");
    expect(overridden("GET", "https://sds.example/api/v1/inventory")).toBe("listSurveys");
    expect(overridden("GET", "https://sds.example/api/v1/survey-groups/42")).toBe("unknown");
    expect(overridden("GET", "https://sds.example/api/v1/surveys")).toBe("unknown");
    expect(overridden("GET", "https://sds.example/api/v1/survey-stats/42")).toBe("getSurveyStats");
  });
});

describe("countingFetch", () => {
  it("observes each request under the operation its matcher names", async () => {
    const seen: string[] = [];
    const fetch = countingFetch(
      () => Promise.resolve(new Response(null, { status: 404 })),
      ({ operation, status }) => seen.push(`${operation} ${status}`),
      operationMatcher({ getSurveyGroups: "/groups/{surveyId}" }),
    );
    await fetch("http://fake.test/api/v1/groups/7");
    await fetch(new Request("http://fake.test/api/v1/survey-groups/7"));
    expect(seen).toEqual(["getSurveyGroups 404", "unknown 404"]);
  });
});
