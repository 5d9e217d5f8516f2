import { hmac } from "@noble/hashes/hmac.js";
import { md5, sha1 } from "@noble/hashes/legacy.js";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import type { HashAlgorithm } from "../hash-algorithm.ts";
import type { SigningMethod } from "../signature-scheme.ts";

// @noble/hashes rather than node:crypto or WebCrypto: it is synchronous (WebCrypto is async
// and would make every sign and verify a promise), runs unchanged in browsers, and has MD5,
// which WebCrypto lacks. A signature is over a URL of a few hundred bytes: microseconds.
const hashes = { sha1, sha256, sha512, md5 } as const;

/**
 * The digest of `message` under `key`: HMAC keyed with the key's UTF-8 bytes, or the plain hash
 * of `message + key` for the concatenation scheme.
 */
export function computeDigest(
  method: SigningMethod,
  algorithm: HashAlgorithm,
  message: string,
  key: string,
): Uint8Array {
  const hash = hashes[algorithm];
  return method === "hmac" ? hmac(hash, utf8ToBytes(key), utf8ToBytes(message)) : hash(utf8ToBytes(message + key));
}

/** Compares two byte arrays in time that depends only on their lengths. */
export function constantTimeEqual(left: Uint8Array, right: Uint8Array): boolean {
  if (left.length !== right.length) return false;
  let difference = 0;
  for (let index = 0; index < left.length; index++) difference |= (left[index] ?? 0) ^ (right[index] ?? 0);
  return difference === 0;
}
