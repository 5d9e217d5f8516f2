import { describe, expect, it } from "vitest";
import { calibrate } from "./calibrate.ts";
import { signUrl } from "./sign-url.ts";

describe("calibrate", () => {
  it("finds Lucid's scheme from its published vector", () => {
    const result = calibrate("https://www.abc.com/ex.aspx?abc=def&vid=123&hash=dYQuf4tCr1l07nDRpzO-PLSBNTQ", "ZZ6VkORqV25iSWOVb5cwZ03zpns");
    expect(result.matches).toEqual([{ algorithm: "sha1", parameter: "hash", encoding: "base64url", includeSeparator: true, method: "hmac" }]);
    expect(result.tried).toBe(48);
  });

  it("finds the separator rule of the SHA256 vector", () => {
    const { matches } = calibrate("https://grabcherries.com/begin?sid=abc&pid=123&mid=456&hash=asd-eDSLSbAGCxnkZtYWtccsmREDr3EZoiHUSr4X5wE", "secret_hash_key");
    expect(matches).toEqual([{ algorithm: "sha256", parameter: "hash", encoding: "base64url", includeSeparator: false, method: "hmac" }]);
  });

  it("recognises every combination it can sign, under any parameter name, ambiguous only in base64 spelling", () => {
    const url = "https://a.example/s?tid=abc&uid=9";
    for (const method of ["hmac", "concatenate"] as const) {
      for (const algorithm of ["sha1", "sha256", "sha512", "md5"] as const) {
        for (const encoding of ["base64url", "base64", "hex"] as const) {
          for (const includeSeparator of [true, false]) {
            const scheme = { algorithm, parameter: "signature", encoding, includeSeparator, method };
            const { matches } = calibrate(signUrl(url, "key", scheme), "key");
            expect(matches).toContainEqual(scheme);
            // A base64url digest without - or _ is valid (unpadded) base64 too: only the encoding can be ambiguous.
            for (const match of matches) expect({ ...match, encoding: scheme.encoding }).toEqual(scheme);
          }
        }
      }
    }
  });

  it("reports no match under the wrong key, and nothing to try without a query", () => {
    expect(calibrate(signUrl("https://a.example/?x=1", "right"), "wrong")).toMatchObject({ matches: [], tried: 48, parameter: "hash" });
    expect(calibrate("https://a.example/", "k")).toEqual({ matches: [], tried: 0, parameter: undefined });
  });
});
