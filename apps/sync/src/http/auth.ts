import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Whether an `Authorization` header carries the bearer token. Both sides are hashed first so
 * the comparison is constant-time whatever their lengths (timingSafeEqual needs equal lengths,
 * and comparing lengths first would leak the token's).
 */
export function hasBearerToken(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  const presented = match?.[1] ?? "";
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(presented), digest(token)) && presented.length > 0;
}
