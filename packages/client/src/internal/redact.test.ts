import { describe, expect, it } from "vitest";
import { REDACTED, redactHeaders, scrubSecrets } from "./redact.ts";

describe("redactHeaders", () => {
  it("replaces the API key and other credentials, keeps the rest", () => {
    const headers = new Headers({
      "EQ-PARTNER-ACCESS-KEY": "secret-key-1",
      Authorization: "Bearer x",
      Accept: "application/json",
    });
    expect(redactHeaders(headers)).toEqual({
      "eq-partner-access-key": REDACTED,
      authorization: REDACTED,
      accept: "application/json",
    });
  });
});

describe("scrubSecrets", () => {
  it("removes every occurrence of each secret", () => {
    expect(scrubSecrets("key secret-key-1 was rejected; secret-key-1", ["secret-key-1"])).toBe(
      `key ${REDACTED} was rejected; ${REDACTED}`,
    );
  });

  it("leaves text alone when the secret is absent or too short to scrub safely", () => {
    expect(scrubSecrets("nothing here", ["secret-key-1"])).toBe("nothing here");
    expect(scrubSecrets("abc", ["ab"])).toBe("abc");
  });
});
