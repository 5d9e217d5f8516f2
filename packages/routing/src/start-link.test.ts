import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { WeakKeyError } from "./errors.ts";
import { signStartLink, verifyStartLink } from "./start-link.ts";

const secret = "a-session-secret-of-32-characters!";
const ts = 1_767_225_600;
const at = (seconds: number) => new Date(seconds * 1000);

describe("signStartLink", () => {
  it("signs the raw query before &sig= with HMAC-SHA256 in hex, fields in a fixed order", () => {
    const query = signStartLink(
      { uid: "r 1/ä", languageId: 3, device: "mobile", returnUrl: "https://panel.example/next?x=1", ts },
      secret,
    );
    const signed =
      "uid=r%201%2F%C3%A4&languageId=3&device=mobile&returnUrl=https%3A%2F%2Fpanel.example%2Fnext%3Fx%3D1&ts=1767225600";
    expect(query).toBe(`${signed}&sig=${createHmac("sha256", secret).update(signed).digest("hex")}`);
  });

  it("encodes what a browser would re-encode (an apostrophe, brackets), so the link arrives as signed", () => {
    const link = signStartLink({ uid: "O'Brien (x)!*", languageId: 3, ts }, secret, { baseUrl: "https://s.example" });
    expect(link).toContain("uid=O%27Brien%20%28x%29%21%2A&");
    const url = new URL(link);
    expect(`${url.origin}${url.pathname}${url.search}`).toBe(link);
    expect(verifyStartLink(url.search, secret, at(ts), 600)).toMatchObject({
      valid: true,
      link: { uid: "O'Brien (x)!*" },
    });
  });

  it("makes the whole URL from a base URL, with or without a trailing slash", () => {
    const query = signStartLink({ uid: "r-1", languageId: 3, ts }, secret);
    expect(signStartLink({ uid: "r-1", languageId: 3, ts }, secret, { baseUrl: "https://sync.example/" })).toBe(
      `https://sync.example/s/start?${query}`,
    );
  });

  it("refuses a secret under 32 characters and a languageId that is not an integer, never naming the secret", () => {
    expect(() => signStartLink({ uid: "r-1", languageId: 3 }, "short-secret")).toThrow(WeakKeyError);
    try {
      signStartLink({ uid: "r-1", languageId: 3 }, "short-secret");
    } catch (error) {
      expect(String(error)).not.toContain("short-secret");
    }
    expect(() => signStartLink({ uid: "r-1", languageId: 1.5 }, secret)).toThrow(RangeError);
  });
});

describe("verifyStartLink", () => {
  it("accepts its own links within their age and returns the fields and the signature", () => {
    const query = signStartLink(
      { uid: "r 1", languageId: 3, device: "tablet", returnUrl: "https://p.example/", ts },
      secret,
    );
    const verdict = verifyStartLink(query, secret, at(ts + 599), 600);
    expect(verdict).toEqual({
      valid: true,
      link: { uid: "r 1", languageId: 3, device: "tablet", returnUrl: "https://p.example/", ts },
      signature: query.slice(-64),
    });
    expect(verifyStartLink(`?${query}`, secret, at(ts), 600).valid).toBe(true);
  });

  it("checks the bytes as sent: the same fields encoded otherwise are a mismatch", () => {
    const query = signStartLink({ uid: "r 1", languageId: 3, ts }, secret);
    const reencoded = query.replace("r%201", "r+1");
    expect(verifyStartLink(reencoded, secret, at(ts), 600)).toMatchObject({ valid: false, reason: "mismatch" });
  });

  it("refuses forged, altered, expired, future, unsigned and malformed links with a reason", () => {
    const query = signStartLink({ uid: "r-1", languageId: 3, ts }, secret);
    const other = signStartLink({ uid: "r-1", languageId: 3, ts }, "another-secret-of-32-characters!!!");
    const cases: [string, Date, string][] = [
      [other, at(ts), "mismatch"],
      [query.replace("uid=r-1", "uid=r-2"), at(ts), "mismatch"],
      [query, at(ts + 601), "expired"],
      [query, at(ts - 120), "expired"],
      [query.slice(0, query.indexOf("&sig=")), at(ts), "missing"],
      [`${query}&x=1`, at(ts), "malformed"],
      [query.replace(/sig=.*/, "sig=zz"), at(ts), "malformed"],
    ];
    for (const [link, now, reason] of cases)
      expect(verifyStartLink(link, secret, now, 600), link).toMatchObject({ valid: false, reason });
  });

  it("refuses a signed link whose fields are missing, repeated or not numbers", () => {
    const sign = (signed: string) => `${signed}&sig=${createHmac("sha256", secret).update(signed).digest("hex")}`;
    for (const signed of [
      `languageId=3&ts=${ts}`,
      `uid=r&ts=${ts}`,
      `uid=r&languageId=x&ts=${ts}`,
      `uid=r&languageId=3`,
      `uid=r&languageId=3&ts=soon`,
      `uid=r&uid=s&languageId=3&ts=${ts}`,
      `uid=r&languageId=3&device=a&device=b&ts=${ts}`,
    ])
      expect(verifyStartLink(sign(signed), secret, at(ts), 600), signed).toMatchObject({
        valid: false,
        reason: "malformed",
      });
    // Names it does not know are covered by the signature and ignored.
    expect(verifyStartLink(sign(`uid=r&languageId=3&ts=${ts}&campaign=7`), secret, at(ts), 600).valid).toBe(true);
  });
});
