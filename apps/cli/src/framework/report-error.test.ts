import { MIN_KEY_LENGTH } from "@sds/routing";
import { describe, expect, it } from "vitest";
import { joinSentences, minimumRedactedLength, redactSecrets } from "./report-error.ts";

describe("redactSecrets", () => {
  it("redacts secrets of at least MIN_KEY_LENGTH characters, the length under which @sds/routing calls a key weak", () => {
    expect(minimumRedactedLength).toBe(MIN_KEY_LENGTH);
    expect(redactSecrets("key=sixteen-chars-key! again sixteen-chars-key!", new Set(["sixteen-chars-key!"]))).toBe(
      "key=[redacted] again [redacted]",
    );
  });

  it("leaves ordinary words whole when a short secret is among them (never un[redacted]nown)", () => {
    expect(redactSecrets("unknown hash algorithm", new Set(["k", "own", "fifteen-chars-k"]))).toBe(
      "unknown hash algorithm",
    );
  });
});

describe("joinSentences", () => {
  it("starts a new sentence after closing punctuation and joins with a semicolon otherwise", () => {
    expect(joinSentences("The API key is not valid.", "is the key for this deployment?")).toBe(
      "The API key is not valid. Is the key for this deployment?",
    );
    expect(joinSentences("HTTP 401", "is the key for this deployment?")).toBe(
      "HTTP 401; is the key for this deployment?",
    );
  });
});
