import { WeakKeyError } from "../errors.ts";
import { MIN_KEY_LENGTH } from "../signature-scheme.ts";

/**
 * Throws {@link WeakKeyError} when `key` has fewer than {@link MIN_KEY_LENGTH} characters
 * (code points, so a key of accented letters counts as it reads).
 */
export function assertUsableKey(key: string): void {
  let length = 0;
  for (const _character of key) {
    if (++length >= MIN_KEY_LENGTH) return;
  }
  throw new WeakKeyError(MIN_KEY_LENGTH);
}
