import type { EncryptionSettings } from "@sds/schemas";
import { parseHashAlgorithm, type HashAlgorithm } from "./hash-algorithm.ts";

/**
 * The length, in characters, under which a signing key is weak. A real `EncryptionKey` is far
 * longer (the sandbox generates 32 hex digits); a key of a few characters is a typo, a
 * placeholder or a documented example, and a signature under it can be found by trying.
 * {@link signUrl} and {@link verifySignedUrl} still sign and verify with one (only an empty key
 * throws {@link WeakKeyError}), so documented examples reproduce; a caller holding an account's
 * key compares it with this and warns (the CLI) or refuses (sds-sync's encryption check).
 */
export const MIN_KEY_LENGTH = 16;

/** How the digest is written into the URL. */
export type DigestEncoding = "base64url" | "base64" | "hex";

/** Every {@link DigestEncoding}, in the order {@link calibrate} tries them. */
export const digestEncodings: readonly DigestEncoding[] = ["base64url", "base64", "hex"];

/** `hmac`: HMAC keyed with the key's UTF-8 bytes. `concatenate`: the plain hash of `url + key`. */
export type SigningMethod = "hmac" | "concatenate";

/**
 * One complete way of signing a URL. The default, {@link defaultSignatureScheme}, is Lucid/Cint
 * Fulcrum's: HMAC over the URL up to and including the `?` or `&` before the hash parameter,
 * appended as `hash=DIGEST` in base64url without padding.
 */
export interface SignatureScheme {
  /** The hash. */
  readonly algorithm: HashAlgorithm;
  /** The name of the query parameter that carries the digest. */
  readonly parameter: string;
  /** How the digest is written. */
  readonly encoding: DigestEncoding;
  /** Whether the signed text ends with the `?` or `&` that precedes the digest parameter. */
  readonly includeSeparator: boolean;
  /** HMAC, or the plain hash of the URL with the key appended. */
  readonly method: SigningMethod;
}

/** A partial {@link SignatureScheme}; `algorithm` may be any name {@link parseHashAlgorithm} reads. */
export type SignatureSchemeOptions = {
  readonly [Field in keyof SignatureScheme]?: Field extends "algorithm" ? string : SignatureScheme[Field];
};

/**
 * Lucid/Cint Fulcrum's scheme: HMAC-SHA1, parameter `hash`, base64url without padding, the
 * trailing separator signed.
 */
export const defaultSignatureScheme: SignatureScheme = {
  algorithm: "sha1",
  parameter: "hash",
  encoding: "base64url",
  includeSeparator: true,
  method: "hmac",
};

/**
 * The complete scheme: the given fields over {@link defaultSignatureScheme}.
 *
 * @throws UnknownAlgorithmError on an algorithm name that is not supported.
 * @throws RangeError on an empty parameter name.
 */
export function resolveSignatureScheme(options: SignatureSchemeOptions = {}): SignatureScheme {
  const scheme: SignatureScheme = {
    algorithm:
      options.algorithm === undefined ? defaultSignatureScheme.algorithm : parseHashAlgorithm(options.algorithm),
    parameter: options.parameter ?? defaultSignatureScheme.parameter,
    encoding: options.encoding ?? defaultSignatureScheme.encoding,
    includeSeparator: options.includeSeparator ?? defaultSignatureScheme.includeSeparator,
    method: options.method ?? defaultSignatureScheme.method,
  };
  if (scheme.parameter === "" || /[&=#?\s]/.test(scheme.parameter)) {
    throw new RangeError(`not a usable query parameter name: ${JSON.stringify(scheme.parameter)}`);
  }
  return scheme;
}

/** A key and the scheme to use it with, read from an account's encryption settings. */
export interface EncryptionSigning {
  /** The `EncryptionKey`. A secret: never log it. */
  readonly key: string;
  /** `Algorithm` and `QueryParameter` (default `hash`) over the default scheme, then `overrides`. */
  readonly scheme: SignatureScheme;
}

/**
 * The key and scheme of an account's `IncomingEncryption` or `OutgoingEncryption`, or
 * `undefined` when it is disabled or has no key (then links are neither signed nor checked).
 *
 * @example
 * ```ts
 * const signing = encryptionSigning(account.IncomingEncryption);
 * const url = signing ? signUrl(entryUrl, signing.key, signing.scheme) : entryUrl;
 * ```
 */
export function encryptionSigning(
  settings: EncryptionSettings,
  overrides: SignatureSchemeOptions = {},
): EncryptionSigning | undefined {
  if (!settings.Enabled || settings.EncryptionKey === null || settings.EncryptionKey === "") return undefined;
  const scheme = resolveSignatureScheme({
    algorithm: settings.Algorithm,
    ...(settings.QueryParameter !== null && settings.QueryParameter !== ""
      ? { parameter: settings.QueryParameter }
      : {}),
    ...overrides,
  });
  return { key: settings.EncryptionKey, scheme };
}
