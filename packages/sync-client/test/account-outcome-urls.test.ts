import { describe, expect, it } from "vitest";
import { isSyncConfigurationError, syncOutcomeUrls } from "../src/index.ts";

describe("syncOutcomeUrls", () => {
  it("points the four redirect URLs at sds-sync's return with the token placeholder in vq_token", () => {
    expect(syncOutcomeUrls("https://sync.example.com/", "return")).toEqual({
      CompleteUrl: "https://sync.example.com/v1/return/complete?vq_token=[#vq_tid#]",
      TerminateUrl: "https://sync.example.com/v1/return/terminate?vq_token=[#vq_tid#]",
      OverQuotaUrl: "https://sync.example.com/v1/return/overquota?vq_token=[#vq_tid#]",
      SecurityTerminateUrl: "https://sync.example.com/v1/return/security?vq_token=[#vq_tid#]",
    });
  });

  it("points the four S2S URLs at the receiver under a path prefix, in the token parameter sds-sync was given", () => {
    const urls = syncOutcomeUrls("https://panel.example/sync//", "receiver", { tokenParameter: "tid" });
    expect(urls.OverQuotaUrl).toBe("https://panel.example/sync/v1/outcomes/overquota?tid=[#vq_tid#]");
    expect(urls.SecurityTerminateUrl).toBe("https://panel.example/sync/v1/outcomes/security?tid=[#vq_tid#]");
  });

  it("refuses a base URL the client would refuse, and a token parameter that is no query parameter name", () => {
    for (const [baseUrl, tokenParameter, option] of [
      ["sync.example.com", undefined, "baseUrl"],
      ["https://sync.example.com/?a=1", undefined, "baseUrl"],
      ["https://sync.example.com#top", undefined, "baseUrl"],
      ["https://sync.example.com", "vq token", "tokenParameter"],
    ] as const) {
      let caught: unknown;
      try {
        syncOutcomeUrls(baseUrl, "return", tokenParameter === undefined ? {} : { tokenParameter });
      } catch (error) {
        caught = error;
      }
      expect(isSyncConfigurationError(caught) && caught.option).toBe(option);
    }
  });
});
