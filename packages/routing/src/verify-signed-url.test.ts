import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashAlgorithms } from "./hash-algorithm.ts";
import { digestEncodings, type SignatureScheme } from "./signature-scheme.ts";
import { createHmac } from "node:crypto";
import { WeakKeyError } from "./errors.ts";
import { signUrl } from "./sign-url.ts";
import { verifySignedRequest, verifySignedUrl } from "./verify-signed-url.ts";

const k = "verify-test-key-0";

const schemeArbitrary: fc.Arbitrary<SignatureScheme> = fc.record({
  algorithm: fc.constantFrom(...hashAlgorithms),
  parameter: fc.constantFrom("hash", "sig", "h"),
  encoding: fc.constantFrom(...digestEncodings),
  includeSeparator: fc.boolean(),
  method: fc.constantFrom("hmac" as const, "concatenate" as const),
});

const queryValue = fc
  .string({ unit: fc.constantFrom(..."abcXYZ019-_.~%20+é[]#".split("")), maxLength: 12 })
  .map((value) => value.replaceAll("#", ""));
const urlArbitrary = fc
  .record({
    host: fc.constantFrom("a.example", "survey.example.com:8443", "127.0.0.1"),
    path: fc.constantFrom("", "/", "/start", "/e/x.aspx"),
    query: fc.array(fc.tuple(fc.constantFrom("sid", "pid", "tid", "uid", "x"), queryValue), { maxLength: 4 }),
  })
  .map(
    ({ host, path, query }) =>
      `https://${host}${path}${query.length > 0 ? `?${query.map(([name, value]) => `${name}=${value}`).join("&")}` : ""}`,
  );
const keyArbitrary = fc.string({ minLength: 16, maxLength: 40 });

describe("verifySignedUrl", () => {
  it("accepts Lucid's published vector", () => {
    expect(
      verifySignedUrl(
        "https://www.abc.com/ex.aspx?abc=def&vid=123&hash=dYQuf4tCr1l07nDRpzO-PLSBNTQ",
        "ZZ6VkORqV25iSWOVb5cwZ03zpns",
      ),
    ).toEqual({ valid: true });
  });

  it("accepts a SHA256 signature made without the separator only under that rule", () => {
    const unsigned = "https://grabcherries.com/begin?sid=abc&pid=123&mid=456";
    const url = `${unsigned}&hash=${createHmac("sha256", k).update(unsigned).digest("base64url")}`;
    expect(verifySignedUrl(url, k, { algorithm: "SHA256", includeSeparator: false }).valid).toBe(true);
    expect(verifySignedUrl(url, k, { algorithm: "SHA256" })).toMatchObject({ valid: false, reason: "mismatch" });
  });

  it("says the signature is missing when the parameter is absent", () => {
    expect(verifySignedUrl("https://a.example/?x=1", k)).toMatchObject({
      valid: false,
      reason: "missing",
      message: 'the URL has no "hash" parameter',
    });
    expect(verifySignedUrl("https://a.example/", k)).toMatchObject({ reason: "missing" });
  });

  it("says the signature is malformed when the value is not a digest of the scheme", () => {
    expect(verifySignedUrl("https://a.example/?x=1&hash=", k)).toMatchObject({ reason: "malformed" });
    expect(verifySignedUrl("https://a.example/?x=1&hash=!!", k)).toMatchObject({ reason: "malformed" });
    expect(verifySignedUrl("https://a.example/?x=1&hash=abcd", k)).toMatchObject({ reason: "malformed" });
    expect(verifySignedUrl("https://a.example/?x=1&hash=%E0%A4%A", k)).toMatchObject({ reason: "malformed" });
    const hex = signUrl("https://a.example/?x=1", k, { encoding: "hex" });
    expect(verifySignedUrl(hex, k)).toMatchObject({ reason: "malformed" });
  });

  it("refuses parameters after the signature, which it would not cover", () => {
    const signed = signUrl("https://a.example/?tid=1", k);
    expect(verifySignedUrl(`${signed}&tid=2`, k)).toMatchObject({ valid: false, reason: "malformed" });
  });

  it("says the signature does not match under another key, and never shows either key", () => {
    const signed = signUrl("https://a.example/?tid=1", "right-key-0123456");
    const result = verifySignedUrl(signed, "wrong-key-0123456");
    expect(result).toMatchObject({ valid: false, reason: "mismatch" });
    expect(JSON.stringify(result)).not.toMatch(/right-key|wrong-key/);
  });

  it("never re-encodes what precedes the signature", () => {
    const url = "https://a.example/?q=a%20b&r=a+b&s=[x]";
    const signed = signUrl(url, k);
    expect(signed.startsWith(`${url}&hash=`)).toBe(true);
    expect(verifySignedUrl(signed, k).valid).toBe(true);
    expect(verifySignedUrl(signed.replace("a%20b", "a b"), k)).toMatchObject({ reason: "mismatch" });
  });

  it("accepts hex in either case and base64 with or without padding", () => {
    const hex = signUrl("https://a.example/?x=1", k, { encoding: "hex" });
    const [prefix, digest] = hex.split("&hash=") as [string, string];
    expect(verifySignedUrl(`${prefix}&hash=${digest.toUpperCase()}`, k, { encoding: "hex" }).valid).toBe(true);
    const base64 = signUrl("https://a.example/?x=1", k, { encoding: "base64" });
    expect(base64).toMatch(/%3D$/);
    expect(verifySignedUrl(base64, k, { encoding: "base64" }).valid).toBe(true);
    expect(verifySignedUrl(decodeURIComponent(base64), k, { encoding: "base64" }).valid).toBe(true);
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
      fc.property(
        urlArbitrary,
        keyArbitrary,
        schemeArbitrary,
        fc.nat(),
        fc.constantFrom(...alphabet),
        (url, key, scheme, at, replacement) => {
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
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("refuses a signed URL with anything appended after a #, which it used to ignore", () => {
    const signed = signUrl("https://panel.example/v1/outcomes/complete?vq_token=t1", k);
    expect(verifySignedUrl(signed, k)).toEqual({ valid: true });
    expect(verifySignedUrl(`${signed}#`, k)).toMatchObject({ valid: false, reason: "fragment" });
    expect(verifySignedUrl(`${signed}#/v1/outcomes/complete?vq_token=other`, k)).toMatchObject({
      valid: false,
      reason: "fragment",
    });
  });

  it("refuses the signed URL smuggled through a Host header, whatever target follows", () => {
    const signed = signUrl("http://panel.example/v1/outcomes/complete?vq_token=t1", k);
    const host = `${signed.slice("http://".length)}#`;
    expect(verifySignedUrl(`http://${host}/v1/outcomes/terminate?vq_token=t2`, k)).toMatchObject({
      valid: false,
      reason: "fragment",
    });
  });

  it("refuses user information and any authority that is not a plain host[:port]", () => {
    const signedWith = (origin: string) => signUrl(`${origin}/p?x=1`, k);
    expect(verifySignedUrl(signedWith("https://user@a.example"), k)).toMatchObject({
      valid: false,
      reason: "userinfo",
    });
    expect(verifySignedUrl(signedWith("https://u:p@a.example"), k)).toMatchObject({ valid: false, reason: "userinfo" });
    expect(verifySignedUrl(signedWith("https://@a.example"), k)).toMatchObject({ valid: false, reason: "userinfo" });
    for (const origin of [
      "https://a.example\\b.example",
      "https://a%2eexample",
      "https://a example",
      "https://a.example:",
      "https://",
      "ftp://a.example",
      "a.example",
    ]) {
      expect(verifySignedUrl(signedWith(origin), k), origin).toMatchObject({ valid: false, reason: "authority" });
    }
    for (const origin of ["https://a.example:8443", "http://127.0.0.1:80", "https://[::1]:8080", "HTTPS://A.EXAMPLE"]) {
      expect(verifySignedUrl(signedWith(origin), k), origin).toEqual({ valid: true });
    }
  });

  it("verifies with a key shorter than 16 characters, and refuses an empty key", () => {
    const signed = signUrl("https://a.example/?x=1", "short");
    expect(verifySignedUrl(signed, "short")).toEqual({ valid: true });
    expect(verifySignedUrl(signed, "shorT").valid).toBe(false);
    expect(() => verifySignedUrl(signed, "")).toThrow(WeakKeyError);
    expect(() => verifySignedUrl(signed, "")).toThrow(/the signing key is empty/);
  });
});

describe("verifySignedRequest", () => {
  const target = "/v1/outcomes/complete?vq_token=t1";

  it("verifies a full-URL signature from the configured origin and the target as received", () => {
    const signed = signUrl(`https://panel.example/sds${target}`, k, { algorithm: "SHA256" });
    const received = signed.slice("https://panel.example/sds".length);
    for (const origin of ["https://panel.example/sds", "https://panel.example/sds/"]) {
      expect(verifySignedRequest({ origin, target: received, key: k, scheme: { algorithm: "SHA256" } })).toEqual({
        valid: true,
      });
    }
    expect(
      verifySignedRequest({
        origin: "https://other.example/sds",
        target: received,
        key: k,
        scheme: { algorithm: "SHA256" },
      }),
    ).toMatchObject({
      valid: false,
      reason: "mismatch",
    });
  });

  it("without an origin, verifies the path and query alone and says so when that does not match", () => {
    const pathSigned = signUrl(target, k);
    expect(verifySignedRequest({ origin: undefined, target: pathSigned, key: k })).toEqual({ valid: true });
    const fullSigned = signUrl(`https://panel.example${target}`, k).slice("https://panel.example".length);
    const result = verifySignedRequest({ origin: undefined, target: fullSigned, key: k });
    expect(result).toMatchObject({ valid: false, reason: "mismatch" });
    expect(result.valid ? "" : result.message).toMatch(/no public origin is configured/);
  });

  it("refuses a target that is not a path and query, or carries a fragment", () => {
    const received = signUrl(`https://panel.example${target}`, k).slice("https://panel.example".length);
    const origin = "https://panel.example";
    expect(verifySignedRequest({ origin, target: `${received}#x`, key: k })).toMatchObject({
      valid: false,
      reason: "fragment",
    });
    expect(verifySignedRequest({ origin, target: `http://evil.example${received}`, key: k })).toMatchObject({
      valid: false,
      reason: "target",
    });
    expect(verifySignedRequest({ origin, target: `/a b${received}`, key: k })).toMatchObject({
      valid: false,
      reason: "target",
    });
    expect(verifySignedRequest({ origin, target: received, key: k })).toEqual({ valid: true });
  });

  it("throws on a configured origin with user information, a query or a fragment, and on a weak key", () => {
    for (const origin of [
      "https://u:p@panel.example",
      "https://panel.example?x=1",
      "https://panel.example#x",
      "panel.example",
      "javascript:alert(1)",
    ]) {
      expect(() => verifySignedRequest({ origin, target, key: k }), origin).toThrow(RangeError);
    }
    expect(() => verifySignedRequest({ origin: undefined, target, key: "" })).toThrow(WeakKeyError);
  });
});
