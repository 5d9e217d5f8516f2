import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { WeakKeyError, isRoutingError } from "./errors.ts";
import { MIN_KEY_LENGTH } from "./signature-scheme.ts";
import { signUrl } from "./sign-url.ts";

const key = "sixteen-char-key";

describe("signUrl", () => {
  it("reproduces Lucid's published HMAC-SHA1 vector", () => {
    expect(
      signUrl("https://www.abc.com/ex.aspx?abc=def&vid=123", "ZZ6VkORqV25iSWOVb5cwZ03zpns", { algorithm: "SHA1" }),
    ).toBe("https://www.abc.com/ex.aspx?abc=def&vid=123&hash=dYQuf4tCr1l07nDRpzO-PLSBNTQ");
  });

  // The published grabcherries vector uses the 15-character key "secret_hash_key", below
  // MIN_KEY_LENGTH; the same scheme is checked against node:crypto with a longer key.
  it("signs HMAC-SHA256 without the trailing separator as the grabcherries scheme does", () => {
    const url = "https://grabcherries.com/begin?sid=abc&pid=123&mid=456";
    const expected = createHmac("sha256", "secret_hash_key_1").update(url).digest("base64url");
    expect(signUrl(url, "secret_hash_key_1", { algorithm: "HMAC-SHA256", includeSeparator: false })).toBe(
      `${url}&hash=${expected}`,
    );
  });

  it("signs a URL without a query by appending ? and covering it", () => {
    const expected = createHmac("sha256", key).update("https://a.example/start?").digest("base64url");
    expect(signUrl("https://a.example/start", key, { algorithm: "sha256" })).toBe(
      `https://a.example/start?hash=${expected}`,
    );
  });

  it("writes lowercase hex, percent-encoded standard base64, and names the parameter as asked", () => {
    const url = "https://a.example/s?x=1";
    const digest = createHmac("sha512", key).update(`${url}&`).digest();
    expect(signUrl(url, key, { algorithm: "SHA512", encoding: "hex", parameter: "sig" })).toBe(
      `${url}&sig=${digest.toString("hex")}`,
    );
    expect(signUrl(url, key, { algorithm: "SHA512", encoding: "base64" })).toBe(
      `${url}&hash=${encodeURIComponent(digest.toString("base64"))}`,
    );
  });

  it("uses the plain hash of url + key for the concatenation method", () => {
    const url = "https://a.example/s?x=1";
    const expected = createHash("md5").update(`${url}&${key}`).digest("hex");
    expect(signUrl(url, key, { algorithm: "MD5", method: "concatenate", encoding: "hex" })).toBe(
      `${url}&hash=${expected}`,
    );
  });

  it("keys the HMAC with the UTF-8 bytes of the key", () => {
    const expected = createHmac("sha1", Buffer.from("clé-ü-clé-ü-clé-ü", "utf8"))
      .update("https://a.example/?")
      .digest("base64url");
    expect(signUrl("https://a.example/?", "clé-ü-clé-ü-clé-ü")).toBe(`https://a.example/?hash=${expected}`);
  });

  it("keeps a fragment at the end, outside the signature", () => {
    const expected = createHmac("sha1", key).update("https://a.example/p?x=1&").digest("base64url");
    expect(signUrl("https://a.example/p?x=1#top", key)).toBe(`https://a.example/p?x=1&hash=${expected}#top`);
  });

  it("re-signs a URL whose last parameter is already the digest", () => {
    const once = signUrl("https://a.example/p?x=1", key);
    expect(signUrl(once, key)).toBe(once);
    expect(signUrl(once, "another-sixteen-char-key")).not.toBe(once);
  });

  it("refuses to sign a URL whose digest parameter is followed by others", () => {
    expect(() => signUrl("https://a.example/p?hash=abc&x=1", key)).toThrow(/followed by others/);
  });

  it("rejects an unknown algorithm without naming the key", () => {
    expect(() => signUrl("https://a.example/", "super-secret-key-1", { algorithm: "SHA3" })).toThrow(
      /unknown hash algorithm "SHA3"/,
    );
    try {
      signUrl("https://a.example/", "super-secret-key-1", { algorithm: "SHA3" });
    } catch (error) {
      expect(JSON.stringify(error) + String(error)).not.toContain("super-secret-key-1");
    }
  });

  it("refuses only the empty key, with a WeakKeyError", () => {
    let thrown: unknown;
    try {
      signUrl("https://a.example/p?x=1", "");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(WeakKeyError);
    expect(isRoutingError(thrown)).toBe(true);
    expect(String(thrown)).toMatch(/the signing key is empty/);
  });

  it("signs with a key shorter than MIN_KEY_LENGTH, as published examples do (grabcherries' secret_hash_key)", () => {
    expect(MIN_KEY_LENGTH).toBe(16);
    const url = "https://grabcherries.com/begin?sid=abc&pid=123&mid=456";
    for (const short of ["k", "thirteen-char", "secret_hash_key", "é".repeat(15)]) {
      const expected = createHmac("sha256", short).update(url).digest("base64url");
      expect(signUrl(url, short, { algorithm: "HMAC-SHA256", includeSeparator: false }), short).toBe(
        `${url}&hash=${expected}`,
      );
    }
  });
});
