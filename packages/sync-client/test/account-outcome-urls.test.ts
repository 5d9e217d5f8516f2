import { describe, expect, it } from "vitest";
import { syncOutcomeUrls } from "../src/index.ts";

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
});
