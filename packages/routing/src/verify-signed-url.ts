import { digestLengths } from "./hash-algorithm.ts";
import { decodeDigest } from "./internal/digest-encoding.ts";
import { computeDigest, constantTimeEqual } from "./internal/digest.ts";
import { findDigestParameter, splitFragment } from "./internal/signed-url-parts.ts";
import { resolveSignatureScheme, type SignatureScheme, type SignatureSchemeOptions } from "./signature-scheme.ts";

/**
 * Why a signed URL was refused: `missing` (no digest parameter), `malformed` (a value that is not
 * a digest of this scheme, or parameters after it, which the digest would not cover), `mismatch`
 * (a well-formed digest that the key does not produce).
 */
export type VerificationFailureReason = "missing" | "malformed" | "mismatch";

/** The answer of {@link verifySignedUrl}. */
export type VerificationResult =
  | { readonly valid: true }
  | {
      readonly valid: false;
      readonly reason: VerificationFailureReason;
      /** A sentence for people; never holds the key. */
      readonly message: string;
    };

function failure(reason: VerificationFailureReason, message: string): VerificationResult {
  return { valid: false, reason, message };
}

/**
 * Verifies a signed URL: cuts the raw URL at the digest parameter (never decoding or
 * re-encoding what precedes it), recomputes the digest and compares in constant time. The
 * digest parameter must be the last one: parameters after it are not covered by the signature,
 * so a URL with any is refused as `malformed`. A fragment is ignored.
 *
 * @param key The `EncryptionKey`. Never logged, never in a result.
 * @example
 * ```ts
 * const result = verifySignedUrl(request.url, key, { algorithm: "SHA256" });
 * if (!result.valid) return reply(403, result.message);
 * ```
 */
export function verifySignedUrl(url: string, key: string, options: SignatureSchemeOptions | SignatureScheme = {}): VerificationResult {
  const scheme = resolveSignatureScheme(options);
  const { base } = splitFragment(url);
  const position = findDigestParameter(base, scheme.parameter);
  if (position === undefined) return failure("missing", `the URL has no "${scheme.parameter}" parameter`);
  if (position.followedByParameters) {
    return failure("malformed", `parameters follow "${scheme.parameter}", so the signature does not cover them`);
  }
  const received = decodeDigest(position.value, scheme.encoding);
  const expectedLength = digestLengths[scheme.algorithm];
  if (received?.length !== expectedLength) {
    return failure("malformed", `"${scheme.parameter}" is not a ${scheme.encoding} ${scheme.algorithm.toUpperCase()} digest (${expectedLength} bytes)`);
  }
  const signed = base.slice(0, scheme.includeSeparator ? position.separatorIndex + 1 : position.separatorIndex);
  const expected = computeDigest(scheme.method, scheme.algorithm, signed, key);
  if (!constantTimeEqual(received, expected)) return failure("mismatch", `"${scheme.parameter}" does not match the URL under this key`);
  return { valid: true };
}
