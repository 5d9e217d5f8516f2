import { createHash, timingSafeEqual } from "node:crypto";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** The configured token's digest, computed once: every request compares against the same token. */
let expected: { readonly token: string; readonly digest: Buffer } | undefined;

function tokenDigest(token: string): Buffer {
  if (expected?.token !== token) expected = { token, digest: digest(token) };
  return expected.digest;
}

/**
 * Whether an `Authorization` header carries the bearer token. Both sides are hashed first so
 * the comparison is constant-time whatever their lengths (timingSafeEqual needs equal lengths,
 * and comparing lengths first would leak the token's).
 */
export function hasBearerToken(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  const presented = match?.[1] ?? "";
  return timingSafeEqual(digest(presented), tokenDigest(token)) && presented.length > 0;
}
