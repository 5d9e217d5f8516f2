import { hashAlgorithms } from "./hash-algorithm.ts";
import { queryParameterNames, splitFragment } from "./internal/signed-url-parts.ts";
import { assertUsableKey } from "./internal/signing-key.ts";
import { digestEncodings, type SignatureScheme, type SigningMethod } from "./signature-scheme.ts";
import { verifySignedUrl } from "./verify-signed-url.ts";

/** The answer of {@link calibrate}. */
export interface CalibrationResult {
  /** Every scheme under which the URL verifies; usually exactly one. Empty when none does. */
  readonly matches: readonly SignatureScheme[];
  /** How many schemes were tried. */
  readonly tried: number;
  /** The parameter that was taken as the digest, or `undefined` when the URL has no query. */
  readonly parameter: string | undefined;
}

const methods: readonly SigningMethod[] = ["hmac", "concatenate"];

/**
 * Finds how a known-good signed URL was signed, because the real service's scheme is not shown:
 * tries every supported algorithm, encoding, separator rule and method, taking the last query
 * parameter as the digest unless `parameter` is given.
 *
 * A fragment (`#…`) is cut off first: a link pasted from a browser may carry one, and no
 * signature covers it.
 *
 * @param key The key it was signed with. Never logged, never in the result.
 * @throws WeakKeyError when the key is empty.
 * @example
 * ```ts
 * const { matches } = calibrate(urlFromTheMarketplace, key);
 * if (matches.length === 1) console.log(matches[0]); // { algorithm: "sha256", … }
 * ```
 */
export function calibrate(
  signedUrl: string,
  key: string,
  options: { readonly parameter?: string } = {},
): CalibrationResult {
  assertUsableKey(key);
  const { base } = splitFragment(signedUrl);
  const parameter = options.parameter ?? queryParameterNames(base).at(-1);
  if (parameter === undefined) return { matches: [], tried: 0, parameter };
  const matches: SignatureScheme[] = [];
  let tried = 0;
  for (const method of methods) {
    for (const algorithm of hashAlgorithms) {
      for (const encoding of digestEncodings) {
        for (const includeSeparator of [true, false]) {
          const scheme: SignatureScheme = { algorithm, parameter, encoding, includeSeparator, method };
          tried++;
          if (verifySignedUrl(base, key, scheme).valid) matches.push(scheme);
        }
      }
    }
  }
  return { matches, tried, parameter };
}
