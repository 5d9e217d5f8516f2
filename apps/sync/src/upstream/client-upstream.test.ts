import { describe, expect, it } from "vitest";
import { createClientUpstream } from "./client-upstream.ts";

describe("createClientUpstream", () => {
  it("holds Get Surveys to SYNC_MAX_LIST_BYTES at its overridden path too", async () => {
    const requested: string[] = [];
    const surveys = Array.from({ length: 200 }, (_, index) => ({ SurveyId: index + 1, Cpi: "1.00" }));
    const upstream = createClientUpstream({
      baseUrl: "http://fake.test/api/v1",
      apiKey: "test-key",
      paths: { listSurveys: "/inventory" },
      maxListBytes: 1024,
      retry: 0,
      fetch: (request) => {
        requested.push(new URL(request instanceof Request ? request.url : String(request)).pathname);
        return Promise.resolve(Response.json({ SupplierId: 1001, Surveys: surveys }));
      },
    });

    const read = (async () => {
      for await (const _entry of upstream.liveSurveys(new AbortController().signal)) {
        // the limit ends the list
      }
    })();

    await expect(read).rejects.toThrow(/SYNC_MAX_LIST_BYTES/);
    expect(requested).toEqual(["/api/v1/inventory"]);
  });
});
