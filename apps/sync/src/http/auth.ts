import { createHash, timingSafeEqual } from "node:crypto";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** The configured tokens' digests, computed once each: every request compares against the same few tokens. */
const digests = new Map<string, Buffer>();

function tokenDigest(token: string): Buffer {
  let known = digests.get(token);
  if (known === undefined) {
    // A handful of tokens at most (the configured ones); tests that start many services stay small too.
    if (digests.size >= 16) digests.clear();
    known = digest(token);
    digests.set(token, known);
  }
  return known;
}

/** The token of an `Authorization: Bearer <token>` header, or "" when it carries none. */
export function presentedBearerToken(authorization: string | undefined): string {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1] ?? "";
}

/**
 * Whether a presented token is the configured `token`. Both sides are hashed first so the
 * comparison is constant-time whatever their lengths (timingSafeEqual needs equal lengths, and
 * comparing lengths first would leak the token's).
 */
export function isToken(presented: string, token: string): boolean {
  return timingSafeEqual(digest(presented), tokenDigest(token)) && presented.length > 0;
}
