import { describe, expect, it } from "vitest";
import { createRouter } from "./router.ts";

const router = createRouter([
  { id: "list", method: "GET", path: "/v1/surveys" },
  { id: "stats", method: "GET", path: "/v1/surveys/stats" },
  { id: "get", method: "GET", path: "/v1/surveys/{id}" },
  { id: "replace", method: "PUT", path: "/v1/surveys/{id}" },
  { id: "quotas", method: "GET", path: "/v1/surveys/{id}/quotas/{quotaId}" },
  { id: "run", method: "POST", path: "/v1/sync/run" },
]);

describe("createRouter", () => {
  it("matches literal paths and fills percent-decoded parameters", () => {
    expect(router.match("GET", "/v1/surveys")).toEqual({ kind: "matched", id: "list", params: {} });
    expect(router.match("GET", "/v1/surveys/42")).toEqual({ kind: "matched", id: "get", params: { id: "42" } });
    expect(router.match("GET", "/v1/surveys/a%20b/quotas/7")).toEqual({
      kind: "matched",
      id: "quotas",
      params: { id: "a b", quotaId: "7" },
    });
  });

  it("prefers a literal route over a parameter route for the same path", () => {
    expect(router.match("GET", "/v1/surveys/stats")).toMatchObject({ kind: "matched", id: "stats" });
    expect(router.match("PUT", "/v1/surveys/stats")).toEqual({
      kind: "matched",
      id: "replace",
      params: { id: "stats" },
    });
  });

  it("treats a trailing slash, a doubled slash and another case as different paths", () => {
    expect(router.match("GET", "/v1/surveys/")).toEqual({ kind: "not-found" });
    expect(router.match("GET", "/v1//surveys")).toEqual({ kind: "not-found" });
    expect(router.match("GET", "/V1/surveys")).toEqual({ kind: "not-found" });
    expect(router.match("GET", "/v1/surveys/42/")).toEqual({ kind: "not-found" });
    expect(router.match("GET", "v1/surveys")).toEqual({ kind: "not-found" });
  });

  it("answers method-not-allowed with every method of the path, once each, in table order", () => {
    expect(router.match("DELETE", "/v1/surveys/42")).toEqual({ kind: "method-not-allowed", allow: ["GET", "PUT"] });
    expect(router.match("DELETE", "/v1/surveys/stats")).toEqual({ kind: "method-not-allowed", allow: ["GET", "PUT"] });
    expect(router.match("GET", "/v1/sync/run")).toEqual({ kind: "method-not-allowed", allow: ["POST"] });
  });

  it("serves HEAD with the GET route, and refuses it where there is none", () => {
    expect(router.match("HEAD", "/v1/surveys/42")).toMatchObject({ kind: "matched", id: "get" });
    expect(router.match("HEAD", "/v1/sync/run")).toEqual({ kind: "method-not-allowed", allow: ["POST"] });
  });

  it("never matches an empty parameter and reports invalid percent-encoding apart from a missing route", () => {
    expect(router.match("GET", "/v1/surveys//quotas/7")).toEqual({ kind: "not-found" });
    expect(router.match("GET", "/v1/surveys/%E0%A4%A")).toEqual({ kind: "bad-encoding", param: "id" });
  });
});
