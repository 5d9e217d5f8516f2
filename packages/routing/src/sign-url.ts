import { RoutingError } from "./errors.ts";
import { encodeDigest } from "./internal/digest-encoding.ts";
import { computeDigest } from "./internal/digest.ts";
import { findDigestParameter, splitFragment } from "./internal/signed-url-parts.ts";
import { assertUsableKey } from "./internal/signing-key.ts";
import { resolveSignatureScheme, type SignatureScheme, type SignatureSchemeOptions } from "./signature-scheme.ts";

/**
 * Signs a URL: appends `&` (or `?` when it has no query), computes the digest of the URL up to
 * and including that separator (or without it, with `includeSeparator: false`) and appends
 * `parameter=DIGEST`. The URL is taken as text, never parsed or re-encoded, so what is signed is
 * what is sent. A fragment (`#…`) stays at the end, unsigned (browsers never send it). A URL
 * that already ends with the digest parameter is signed afresh.
 *
 * @param key The `EncryptionKey`, used as UTF-8 bytes, not empty (weak under
 * {@link MIN_KEY_LENGTH} characters). Never logged, never in an error.
 * @throws WeakKeyError when the key is empty.
 * @throws RoutingError when the digest parameter is already there with parameters after it.
 * @throws UnknownAlgorithmError on an unsupported algorithm name.
 * @example
 * ```ts
 * signUrl("https://www.abc.com/ex.aspx?abc=def&vid=123", "ZZ6VkORqV25iSWOVb5cwZ03zpns");
 * // "https://www.abc.com/ex.aspx?abc=def&vid=123&hash=dYQuf4tCr1l07nDRpzO-PLSBNTQ"
 * ```
 */
export function signUrl(url: string, key: string, options: SignatureSchemeOptions | SignatureScheme = {}): string {
  const scheme = resolveSignatureScheme(options);
  assertUsableKey(key);
  const { base, fragment } = splitFragment(url);
  const existing = findDigestParameter(base, scheme.parameter);
  if (existing?.followedByParameters === true) {
    throw new RoutingError(
      `the URL already carries a "${scheme.parameter}" parameter followed by others; remove it before signing`,
    );
  }
  const unsigned = existing === undefined ? base : base.slice(0, existing.separatorIndex);
  const prefix = !unsigned.includes("?") ? `${unsigned}?` : /[?&]$/.test(unsigned) ? unsigned : `${unsigned}&`;
  const signed = scheme.includeSeparator ? prefix : prefix.slice(0, -1);
  const digest = computeDigest(scheme.method, scheme.algorithm, signed, key);
  return `${prefix}${scheme.parameter}=${encodeDigest(digest, scheme.encoding)}${fragment}`;
}
