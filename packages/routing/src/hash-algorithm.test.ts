import { describe, expect, it } from "vitest";
import { UnknownAlgorithmError, isRoutingError } from "./errors.ts";
import { parseHashAlgorithm } from "./hash-algorithm.ts";

describe("parseHashAlgorithm", () => {
  it.each([
    ["SHA1", "sha1"],
    ["sha-1", "sha1"],
    ["HmacSHA1", "sha1"],
    ["SHA256", "sha256"],
    ["HMAC-SHA256", "sha256"],
    ["hmac_sha_256", "sha256"],
    ["sha2-256", "sha256"],
    ["SHA512", "sha512"],
    ["Sha 512", "sha512"],
    ["MD5", "md5"],
    ["hmacmd5", "md5"],
  ])("reads %j as %s", (name, expected) => {
    expect(parseHashAlgorithm(name)).toBe(expected);
  });

  it.each(["SHA384", "SHA3-256", "", "crc32"])("refuses %j with an UnknownAlgorithmError", (name) => {
    const attempt = () => parseHashAlgorithm(name);
    expect(attempt).toThrow(UnknownAlgorithmError);
    try {
      attempt();
    } catch (error) {
      expect(isRoutingError(error)).toBe(true);
    }
  });
});
