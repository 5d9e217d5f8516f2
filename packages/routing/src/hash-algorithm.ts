import { UnknownAlgorithmError } from "./errors.ts";

/** A hash that link signatures can use. */
export type HashAlgorithm = "sha1" | "sha256" | "sha512" | "md5";

/** Every {@link HashAlgorithm}, in the order {@link calibrate} tries them. */
export const hashAlgorithms: readonly HashAlgorithm[] = ["sha1", "sha256", "sha512", "md5"];

const byCanonicalName: ReadonlyMap<string, HashAlgorithm> = new Map([
  ["SHA1", "sha1"],
  ["SHA", "sha1"],
  ["SHA256", "sha256"],
  ["SHA2256", "sha256"],
  ["SHA512", "sha512"],
  ["SHA2512", "sha512"],
  ["MD5", "md5"],
]);

/**
 * Reads an algorithm name leniently, as accounts and integrations spell it: case, dashes,
 * underscores, spaces and an `HMAC` prefix do not matter (`"SHA256"`, `"sha-256"`,
 * `"HMACSHA256"`, `"HmacSHA1"`, `"hmac_md5"`).
 *
 * @throws UnknownAlgorithmError when the name is none of SHA1, SHA256, SHA512, MD5.
 * @example
 * ```ts
 * parseHashAlgorithm("HMAC-SHA256"); // "sha256"
 * ```
 */
export function parseHashAlgorithm(name: string): HashAlgorithm {
  const canonical = name
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "")
    .replace(/^HMAC/, "");
  const algorithm = byCanonicalName.get(canonical);
  if (algorithm === undefined) throw new UnknownAlgorithmError(name);
  return algorithm;
}

/** The digest length of each algorithm, in bytes. */
export const digestLengths: Readonly<Record<HashAlgorithm, number>> = { sha1: 20, sha256: 32, sha512: 64, md5: 16 };
