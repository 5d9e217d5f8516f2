import { WeakKeyError } from "../errors.ts";

/**
 * Throws {@link WeakKeyError} when `key` is empty: an empty HMAC key signs nothing anyone keeps
 * secret. A short key is the caller's decision (documented examples use 13 and 15 characters):
 * callers that hold an account's key compare it with `MIN_KEY_LENGTH` and warn or refuse.
 */
export function assertUsableKey(key: string): void {
  if (key === "") throw new WeakKeyError(1);
}
