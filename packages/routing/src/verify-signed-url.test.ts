import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashAlgorithms } from "./hash-algorithm.ts";
import { digestEncodings, type SignatureScheme } from "./signature-scheme.ts";
import { signUrl } from "./sign-url.ts";
import { verifySignedUrl } from "./verify-signed-url.ts";

const schemeArbitrary: fc.Arbitrary<SignatureScheme> = fc.record({
  algorithm: fc.constantFrom(...hashAlgorithms),
  parameter: fc.constantFrom("hash", "sig", "h"),
  encoding: fc.constantFrom(...digestEncodings),
  includeSeparator: fc.boolean(),
  method: fc.constantFrom("hmac" as const, "concatenate" as const),
});

const queryValue = fc.string({ unit: fc.constantFrom(..."abcXYZ019-_.~%20+é[]#".split("")), maxLength: 12 }).map((value) => value.replaceAll("#", ""));
const urlArbitrary = fc
  .record({
    host: fc.constantFrom("a.example", "survey.example.com:8443", "127.0.0.1"),
    path: fc.constantFrom("", "/", "/start", "/e/x.aspx"),
    query: fc.array(fc.tuple(fc.constantFrom("sid", "pid", "tid", "uid", "x"), queryValue), { maxLength: 4 }),
  })
  .map(({ host, path, query }) => `https://${host}${path}${query.length > 0 ? `?${query.map(([name, value]) => `${name}=${value}`).join("&")}` : ""}`);
const keyArbitrary = fc.string({ minLength: 1, maxLength: 40 });

describe("verifySignedUrl", () => {
  it("accepts Lucid's published vector", () => {
    expect(verifySignedUrl("https://www.abc.com/ex.aspx?abc=def&vid=123&hash=dYQuf4tCr1l07nDRpzO-PLSBNTQ", "ZZ6VkORqV25iSWOVb5cwZ03zpns")).toEqual({ valid: true });
  });

  it("accepts the published SHA256 vector signed without the separator", () => {
    const url = "https://grabcherries.com/begin?sid=abc&pid=123&mid=456&hash=asd-eDSLSbAGCxnkZtYWtccsmREDr3EZoiHUSr4X5wE";
    expect(verifySignedUrl(url, "secret_hash_key", { algorithm: "SHA256", includeSeparator: false }).valid).toBe(true);
    expect(verifySignedUrl(url, "secret_hash_key", { algorithm: "SHA256" })).toMatchObject({ valid: false, reason: "mismatch" });
  });

  it("says the signature is missing when the parameter is absent", () => {
    expect(verifySignedUrl("https://a.example/?x=1", "k")).toMatchObject({ valid: false, reason: "missing", message: 'the URL has no "hash" parameter' });
    expect(verifySignedUrl("https://a.example/", "k")).toMatchObject({ reason: "missing" });
  });

  it("says the signature is malformed when the value is not a digest of the scheme", () => {
    expect(verifySignedUrl("https://a.example/?x=1&hash=", "k")).toMatchObject({ reason: "malformed" });
    expect(verifySignedUrl("https://a.example/?x=1&hash=!!", "k")).toMatchObject({ reason: "malformed" });
    expect(verifySignedUrl("https://a.example/?x=1&hash=abcd", "k")).toMatchObject({ reason: "malformed" });
    expect(verifySignedUrl("https://a.example/?x=1&hash=%E0%A4%A", "k")).toMatchObject({ reason: "malformed" });
    const hex = signUrl("https://a.example/?x=1", "k", { encoding: "hex" });
    expect(verifySignedUrl(hex, "k")).toMatchObject({ reason: "malformed" });
  });

  it("refuses parameters after the signature, which it would not cover", () => {
    const signed = signUrl("https://a.example/?tid=1", "k");
    expect(verifySignedUrl(`${signed}&tid=2`, "k")).toMatchObject({ valid: false, reason: "malformed" });
  });

  it("says the signature does not match under another key, and never shows either key", () => {
    const signed = signUrl("https://a.example/?tid=1", "right-key");
    const result = verifySignedUrl(signed, "wrong-key");
    expect(result).toMatchObject({ valid: false, reason: "mismatch" });
    expect(JSON.stringify(result)).not.toMatch(/right-key|wrong-key/);
  });

  it("never re-encodes what precedes the signature", () => {
    const url = "https://a.example/?q=a%20b&r=a+b&s=[x]";
    const signed = signUrl(url, "k");
    expect(signed.startsWith(`${url}&hash=`)).toBe(true);
    expect(verifySignedUrl(signed, "k").valid).toBe(true);
    expect(verifySignedUrl(signed.replace("a%20b", "a b"), "k")).toMatchObject({ reason: "mismatch" });
  });

  it("accepts hex in either case and base64 with or without padding", () => {
    const hex = signUrl("https://a.example/?x=1", "k", { encoding: "hex" });
    const [prefix, digest] = hex.split("&hash=") as [string, string];
    expect(verifySignedUrl(`${prefix}&hash=${digest.toUpperCase()}`, "k", { encoding: "hex" }).valid).toBe(true);
    const base64 = signUrl("https://a.example/?x=1", "k", { encoding: "base64" });
    expect(base64).toMatch(/%3D$/);
    expect(verifySignedUrl(base64, "k", { encoding: "base64" }).valid).toBe(true);
    expect(verifySignedUrl(decodeURIComponent(base64), "k", { encoding: "base64" }).valid).toBe(true);
  });

  it("verifies every URL it signed, under every scheme (property)", () => {
    fc.assert(
      fc.property(urlArbitrary, keyArbitrary, schemeArbitrary, (url, key, scheme) => {
        expect(verifySignedUrl(signUrl(url, key, scheme), key, scheme)).toEqual({ valid: true });
      }),
      { numRuns: 500 },
    );
  });

  it("refuses a signed URL with any one character changed (property)", () => {
    const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~%&=?/:+".split("");
    fc.assert(
      fc.property(urlArbitrary, keyArbitrary, schemeArbitrary, fc.nat(), fc.constantFrom(...alphabet), (url, key, scheme, at, replacement) => {
        const signed = signUrl(url, key, scheme);
        const index = at % signed.length;
        fc.pre(signed[index] !== replacement);
        const tampered = signed.slice(0, index) + replacement + signed.slice(index + 1);
        // Equivalent spellings of the same digest are accepted by design (hex digits and
        // percent-escapes in either case, as .NET senders write them): a case change there is no change.
        const digestStart = signed.lastIndexOf(`${scheme.parameter}=`) + scheme.parameter.length + 1;
        const inEscape = signed[index - 1] === "%" || signed[index - 2] === "%";
        const caseOnly = signed[index]?.toLowerCase() === replacement.toLowerCase();
        fc.pre(!(caseOnly && index >= digestStart && (scheme.encoding === "hex" || inEscape)));
        expect(verifySignedUrl(tampered, key, scheme).valid).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});
