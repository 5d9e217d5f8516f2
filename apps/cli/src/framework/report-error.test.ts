import { MIN_KEY_LENGTH } from "@sds/routing";
import { describe, expect, it } from "vitest";
import { joinSentences, minimumRedactedLength, redactSecrets, reportError } from "./report-error.ts";
import { createStyles } from "./styles.ts";

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

describe("reportError", () => {
  it("prints a server's message with its control characters visible, never raw", () => {
    let written = "";
    const stderr = { write: (chunk: string) => ((written += chunk), true), once: () => undefined };
    reportError(
      Object.assign(new Error("refused \u001b[2J\u001b]8;;https://x\u001b\\ok\b\u009b"), { name: "ApiError" }),
      {
        stderr,
        styles: createStyles(false),
        debug: false,
        secrets: new Set(),
      },
    );
    expect(written).toBe(
      "error: refused \\x1b[2J\\x1b]8;;https://x\\x1b\\ok\\x08\\x9b. Run with --debug for details.\n",
    );
  });
});
