import { describe, expect, it } from "vitest";
import { parseBaseUrl } from "./base-url.ts";
import { ConfigurationError } from "./errors/configuration-error.ts";

function refusal(value: string): ConfigurationError {
  try {
    parseBaseUrl(value);
  } catch (error) {
    if (error instanceof ConfigurationError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be refused`);
}

describe("parseBaseUrl", () => {
  it.each([
    ["https://sds.example/api/v1", "https://sds.example/api/v1"],
    ["  http://127.0.0.1:8080/api/v1/  ", "http://127.0.0.1:8080/api/v1/"],
    ["https://sds.example/api/v1.2/x..y/.well/", "https://sds.example/api/v1.2/x..y/.well/"],
  ])("accepts %s", (value, href) => {
    expect(parseBaseUrl(value).href).toBe(href);
  });

  it.each([
    ["a relative URL", "/api/v1", /not an absolute URL/],
    ["an empty string", "  ", /empty/],
    ["another scheme", "ftp://sds.example/api/v1", /not an http or https URL/],
    ["a query", "https://sds.example/api/v1?tenant=a", /query or a fragment/],
    ["an empty query", "https://sds.example/api/v1?", /query or a fragment/],
    ["a fragment", "https://sds.example/api/v1#top", /query or a fragment/],
    ["a '..' segment", "http://host/api/v1/../../__sandbox", /"\." or "\.\." path segments/],
    ["a '.' segment", "http://host/api/./v1", /path segments/],
    ["a trailing '..'", "http://host/api/v1/..", /path segments/],
    ["a percent-encoded '..'", "http://host/api/v1/%2e%2E/admin", /path segments/],
    ["a half-encoded '..'", "http://host/api/v1/.%2e/admin", /path segments/],
    ["a '..' behind a backslash", "http://host/api/v1\\..\\admin", /path segments/],
    ["a '..' split by a tab", "http://host/api/v1/.\t./admin", /path segments/],
  ])("refuses %s", (_label, value, message) => {
    const error = refusal(value);
    expect(error.option).toBe("baseUrl");
    expect(error.message).toMatch(message);
  });

  it("refuses credentials without quoting them", () => {
    for (const value of ["https://user:s3cret-pw@sds.example/api/v1", "https://s3cret-pw@sds.example/api/v1"]) {
      const error = refusal(value);
      expect(error.message).toMatch(/must not carry credentials/);
      expect(error.message).toContain("https://sds.example/api/v1");
      expect(JSON.stringify(error) + error.message + String(error.stack)).not.toContain("s3cret-pw");
    }
    expect(refusal("http://user:s3cret-pw@[::1/api").message).not.toContain("s3cret-pw");
  });
});
