import { describe, expect, it } from "vitest";
import { operationOf } from "./counting-fetch.ts";

describe("operationOf", () => {
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
});
