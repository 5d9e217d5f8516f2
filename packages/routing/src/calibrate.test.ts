import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { calibrate } from "./calibrate.ts";
import { WeakKeyError } from "./errors.ts";
import { signUrl } from "./sign-url.ts";

describe("calibrate", () => {
  it("finds Lucid's scheme from its published vector", () => {
    const result = calibrate(
      "https://www.abc.com/ex.aspx?abc=def&vid=123&hash=dYQuf4tCr1l07nDRpzO-PLSBNTQ",
      "ZZ6VkORqV25iSWOVb5cwZ03zpns",
    );
    expect(result.matches).toEqual([
      { algorithm: "sha1", parameter: "hash", encoding: "base64url", includeSeparator: true, method: "hmac" },
    ]);
    expect(result.tried).toBe(48);
  });

  // The published grabcherries vector's key ("secret_hash_key") is shorter than MIN_KEY_LENGTH:
  // its scheme is rebuilt with node:crypto under a longer key.
  it("finds the separator rule of a SHA256 signature made without the separator, ignoring a fragment", () => {
    const unsigned = "https://grabcherries.com/begin?sid=abc&pid=123&mid=456";
    const signed = `${unsigned}&hash=${createHmac("sha256", "secret_hash_key_1").update(unsigned).digest("base64url")}#top`;
    const { matches } = calibrate(signed, "secret_hash_key_1");
    expect(matches).toEqual([
      { algorithm: "sha256", parameter: "hash", encoding: "base64url", includeSeparator: false, method: "hmac" },
    ]);
  });

  it("recognises every combination it can sign, under any parameter name, ambiguous only in base64 spelling", () => {
    const url = "https://a.example/s?tid=abc&uid=9";
    for (const method of ["hmac", "concatenate"] as const) {
      for (const algorithm of ["sha1", "sha256", "sha512", "md5"] as const) {
        for (const encoding of ["base64url", "base64", "hex"] as const) {
          for (const includeSeparator of [true, false]) {
            const scheme = { algorithm, parameter: "signature", encoding, includeSeparator, method };
            const { matches } = calibrate(signUrl(url, "calibration-key-1", scheme), "calibration-key-1");
            expect(matches).toContainEqual(scheme);
            // A base64url digest without - or _ is valid (unpadded) base64 too: only the encoding can be ambiguous.
            for (const match of matches) expect({ ...match, encoding: scheme.encoding }).toEqual(scheme);
          }
        }
      }
    }
  });

  it("reports no match under the wrong key, and nothing to try without a query", () => {
    expect(calibrate(signUrl("https://a.example/?x=1", "right-key-0123456"), "wrong-key-0123456")).toMatchObject({
      matches: [],
      tried: 48,
      parameter: "hash",
    });
    expect(calibrate("https://a.example/", "calibration-key-1")).toEqual({
      matches: [],
      tried: 0,
      parameter: undefined,
    });
  });

  it("refuses an empty key before trying anything", () => {
    expect(() => calibrate("https://a.example/", "")).toThrow(WeakKeyError);
  });
});
