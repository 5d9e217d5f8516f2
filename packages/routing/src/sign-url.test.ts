import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signUrl } from "./sign-url.ts";

describe("signUrl", () => {
  it("reproduces Lucid's published HMAC-SHA1 vector", () => {
    expect(signUrl("https://www.abc.com/ex.aspx?abc=def&vid=123", "ZZ6VkORqV25iSWOVb5cwZ03zpns", { algorithm: "SHA1" })).toBe(
      "https://www.abc.com/ex.aspx?abc=def&vid=123&hash=dYQuf4tCr1l07nDRpzO-PLSBNTQ",
    );
  });

  it("reproduces the published HMAC-SHA256 vector signed without the trailing separator", () => {
    const signed = signUrl("https://grabcherries.com/begin?sid=abc&pid=123&mid=456", "secret_hash_key", {
      algorithm: "HMAC-SHA256",
      includeSeparator: false,
    });
    expect(signed).toBe("https://grabcherries.com/begin?sid=abc&pid=123&mid=456&hash=asd-eDSLSbAGCxnkZtYWtccsmREDr3EZoiHUSr4X5wE");
  });

  it("signs a URL without a query by appending ? and covering it", () => {
    const expected = createHmac("sha256", "k").update("https://a.example/start?").digest("base64url");
    expect(signUrl("https://a.example/start", "k", { algorithm: "sha256" })).toBe(`https://a.example/start?hash=${expected}`);
  });

  it("writes lowercase hex, percent-encoded standard base64, and names the parameter as asked", () => {
    const url = "https://a.example/s?x=1";
    const digest = createHmac("sha512", "key").update(`${url}&`).digest();
    expect(signUrl(url, "key", { algorithm: "SHA512", encoding: "hex", parameter: "sig" })).toBe(`${url}&sig=${digest.toString("hex")}`);
    expect(signUrl(url, "key", { algorithm: "SHA512", encoding: "base64" })).toBe(`${url}&hash=${encodeURIComponent(digest.toString("base64"))}`);
  });

  it("uses the plain hash of url + key for the concatenation method", () => {
    const url = "https://a.example/s?x=1";
    const expected = createHash("md5").update(`${url}&key`).digest("hex");
    expect(signUrl(url, "key", { algorithm: "MD5", method: "concatenate", encoding: "hex" })).toBe(`${url}&hash=${expected}`);
  });

  it("keys the HMAC with the UTF-8 bytes of the key", () => {
    const expected = createHmac("sha1", Buffer.from("clé-ü", "utf8")).update("https://a.example/?").digest("base64url");
    expect(signUrl("https://a.example/?", "clé-ü")).toBe(`https://a.example/?hash=${expected}`);
  });

  it("keeps a fragment at the end, outside the signature", () => {
    const expected = createHmac("sha1", "k").update("https://a.example/p?x=1&").digest("base64url");
    expect(signUrl("https://a.example/p?x=1#top", "k")).toBe(`https://a.example/p?x=1&hash=${expected}#top`);
  });

  it("re-signs a URL whose last parameter is already the digest", () => {
    const once = signUrl("https://a.example/p?x=1", "k");
    expect(signUrl(once, "k")).toBe(once);
    expect(signUrl(once, "other")).not.toBe(once);
  });

  it("refuses to sign a URL whose digest parameter is followed by others", () => {
    expect(() => signUrl("https://a.example/p?hash=abc&x=1", "k")).toThrow(/followed by others/);
  });

  it("rejects an unknown algorithm without naming the key", () => {
    expect(() => signUrl("https://a.example/", "super-secret", { algorithm: "SHA3" })).toThrow(/unknown hash algorithm "SHA3"/);
    try {
      signUrl("https://a.example/", "super-secret", { algorithm: "SHA3" });
    } catch (error) {
      expect(JSON.stringify(error) + String(error)).not.toContain("super-secret");
    }
  });
});
