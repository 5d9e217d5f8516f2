import { digestLengths } from "./hash-algorithm.ts";
import { decodeDigest } from "./internal/digest-encoding.ts";
import { computeDigest, constantTimeEqual } from "./internal/digest.ts";
import { findDigestParameter } from "./internal/signed-url-parts.ts";
import { assertUsableKey } from "./internal/signing-key.ts";
import { hasControlCharacters, httpUrlShapeProblem } from "./internal/url-authority.ts";
import { resolveSignatureScheme, type SignatureScheme, type SignatureSchemeOptions } from "./signature-scheme.ts";

/**
 * Why a signed URL was refused: `missing` (no digest parameter), `malformed` (a value that is not
 * a digest of this scheme, or parameters after it, which the digest would not cover), `mismatch`
 * (a well-formed digest that the key does not produce); and, before any digest is computed,
 * `fragment` (a `#` anywhere: no sender puts one in a signed request, and everything after it
 * would escape the check), `userinfo` (`user@` or `user:password@` before the host), `authority`
 * (not `http://` or `https://` followed by a plain `host[:port]`), `target` (a request target
 * that is not a path and query, see {@link verifySignedRequest}).
 */
export type VerificationFailureReason =
  "missing" | "malformed" | "mismatch" | "fragment" | "userinfo" | "authority" | "target";

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

/** The checks that come before the digest: the URL must be one a sender signs and a server receives. */
function urlShapeFailure(url: string): VerificationResult | undefined {
  if (url.includes("#"))
    return failure("fragment", "the URL has a fragment (#…), which no signed request carries and no signature covers");
  const problem = httpUrlShapeProblem(url);
  if (problem === undefined) return undefined;
  if (problem.kind === "userinfo") return failure("userinfo", "the URL has user information (user@) before its host");
  if (problem.kind === "unsupported-scheme")
    return failure("authority", `the URL is ${problem.scheme}:, not http: or https:`);
  return failure("authority", "the URL does not start with http:// or https:// and a plain host[:port]");
}

/** Recomputes the digest of `text` cut at the digest parameter and compares it with the one it carries. */
function verifyDigest(text: string, key: string, scheme: SignatureScheme, mismatchNote = ""): VerificationResult {
  const position = findDigestParameter(text, scheme.parameter);
  if (position === undefined) return failure("missing", `the URL has no "${scheme.parameter}" parameter`);
  if (position.followedByParameters) {
    return failure("malformed", `parameters follow "${scheme.parameter}", so the signature does not cover them`);
  }
  const received = decodeDigest(position.value, scheme.encoding);
  const expectedLength = digestLengths[scheme.algorithm];
  if (received?.length !== expectedLength) {
    return failure(
      "malformed",
      `"${scheme.parameter}" is not a ${scheme.encoding} ${scheme.algorithm.toUpperCase()} digest (${expectedLength} bytes)`,
    );
  }
  const signed = text.slice(0, scheme.includeSeparator ? position.separatorIndex + 1 : position.separatorIndex);
  const expected = computeDigest(scheme.method, scheme.algorithm, signed, key);
  if (!constantTimeEqual(received, expected))
    return failure("mismatch", `"${scheme.parameter}" does not match the URL under this key${mismatchNote}`);
  return { valid: true };
}

/**
 * Verifies a signed URL: cuts the raw URL at the digest parameter (never decoding or
 * re-encoding what precedes it), recomputes the digest and compares in constant time. The
 * digest parameter must be the last one: parameters after it are not covered by the signature,
 * so a URL with any is refused as `malformed`. Before that, the URL must be `http://` or
 * `https://`, a plain `host[:port]` (no `user@`) and carry no fragment: a `#` would let
 * anything after it ride along unchecked (a signed URL with `#…` appended, say through a
 * `Host` header). To verify a request as received by a server, use {@link verifySignedRequest}.
 *
 * @param key The `EncryptionKey`, not empty (weak under {@link MIN_KEY_LENGTH} characters). Never logged, never in a result.
 * @throws WeakKeyError when the key is empty.
 * @example
 * ```ts
 * const result = verifySignedUrl(signedLink, key, { algorithm: "SHA256" });
 * if (!result.valid) console.error(result.reason, result.message);
 * ```
 */
export function verifySignedUrl(
  url: string,
  key: string,
  options: SignatureSchemeOptions | SignatureScheme = {},
): VerificationResult {
  const scheme = resolveSignatureScheme(options);
  assertUsableKey(key);
  return urlShapeFailure(url) ?? verifyDigest(url, key, scheme);
}

/** What {@link verifySignedRequest} checks. */
export interface SignedRequest {
  /**
   * The public origin the sender addressed, with any path prefix a proxy strips
   * (`https://panel.example/sds`); no trailing `/` needed. Configured, never taken from the
   * request's `Host` header, which the sender of the request chooses. `undefined`: the
   * signature is checked over `target` alone (see {@link verifySignedRequest}).
   */
  readonly origin: string | undefined;
  /** The request target exactly as received (`request.url` in Node): path and query, never decoded. */
  readonly target: string;
  /** The `EncryptionKey`, not empty (weak under {@link MIN_KEY_LENGTH} characters). */
  readonly key: string;
  /** The scheme, as for {@link verifySignedUrl}. */
  readonly scheme?: SignatureSchemeOptions | SignatureScheme;
}

/**
 * Verifies the signature of a request a server received, from its target (path and query, as
 * received) and the public origin it was sent to. The default scheme (and every scheme of
 * {@link SignatureScheme}) signs the FULL URL, scheme and host included: the digest covers
 * `https://panel.example/sds/v1/outcomes/complete?vq_token=…&`. So a server that receives
 * signed calls must be configured with the origin its callers use; it must not rebuild it
 * from `Host`, which the caller chooses.
 *
 * With `origin` undefined, the signed text is taken to be `target` alone
 * (`/v1/outcomes/complete?vq_token=…&`): right only for a sender that signs the path and query
 * without scheme and host. A full-URL signature then fails as `mismatch`, with a message that
 * says the origin is not configured.
 *
 * The target must be a path (it starts with `/`) without a fragment or whitespace; otherwise
 * the result is `target` or `fragment`, before any digest is computed.
 *
 * @throws RangeError when `origin` is not `http(s)://host[:port][/path]` (no `user@`, query or fragment): a configuration mistake.
 * @throws WeakKeyError when the key is empty.
 * @example
 * ```ts
 * const verdict = verifySignedRequest({ origin: "https://panel.example/sds", target: request.url, key, scheme });
 * if (!verdict.valid) return reply(403, verdict.message);
 * ```
 */
export function verifySignedRequest(request: SignedRequest): VerificationResult {
  const scheme = resolveSignatureScheme(request.scheme);
  assertUsableKey(request.key);
  const origin = request.origin === undefined ? undefined : publicOrigin(request.origin);
  const { target } = request;
  if (target.includes("#"))
    return failure("fragment", "the request target has a fragment (#…), which no signed request carries");
  // Origin-form only: a path, no whitespace or control characters (`GET http://other/… HTTP/1.1` is not what was signed).
  if (!target.startsWith("/") || /\s/.test(target) || hasControlCharacters(target)) {
    return failure("target", "the request target is not a path and query (it must start with /)");
  }
  if (origin !== undefined) return verifyDigest(origin + target, request.key, scheme);
  return verifyDigest(
    target,
    request.key,
    scheme,
    " (checked over the path and query alone: no public origin is configured, and a sender that signs the full URL needs it)",
  );
}

function publicOrigin(origin: string): string {
  const problem = httpUrlShapeProblem(origin);
  if (problem !== undefined || /[?#\s]/.test(origin)) {
    throw new RangeError(
      "the public origin must be http(s)://host[:port] with an optional path, no user@, query or fragment",
    );
  }
  return origin.replace(/\/+$/, "");
}
