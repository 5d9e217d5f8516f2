import { describe, expect, it } from "vitest";
import { parseWebhookHeaders } from "./webhook-headers.ts";

describe("parseWebhookHeaders", () => {
  it("reads the three headers from a header block in any case, skipping the request line and other headers", () => {
    const block =
      "POST /hooks HTTP/1.1\r\nContent-Type: application/json\r\nWebhook-Id: outcome-7\r\nwebhook-timestamp:  1764316800 \r\nWEBHOOK-SIGNATURE: v1,abc= v1,def=\r\n\r\n";
    expect(Object.fromEntries(parseWebhookHeaders(block))).toEqual({
      "webhook-id": "outcome-7",
      "webhook-timestamp": "1764316800",
      "webhook-signature": "v1,abc= v1,def=",
    });
  });

  it("keeps the last of a repeated header, and finds nothing in a block without them", () => {
    expect(parseWebhookHeaders("webhook-id: a\nwebhook-id: b\n").get("webhook-id")).toBe("b");
    expect(parseWebhookHeaders("Host: example\n").size).toBe(0);
  });
});
