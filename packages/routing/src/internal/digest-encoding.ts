import type { DigestEncoding } from "../signature-scheme.ts";

const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const base64Values = new Map<string, number>(base64Alphabet.split("").map((character, index) => [character, index]));
for (const [character, value] of [
  ["-", 62],
  ["_", 63],
] as const)
  base64Values.set(character, value);

// Written out rather than Buffer (Node only) or Uint8Array.fromBase64 (not yet in Node 24).
function toBase64(bytes: Uint8Array): string {
  let out = "";
  for (let index = 0; index < bytes.length; index += 3) {
    const chunk = ((bytes[index] ?? 0) << 16) | ((bytes[index + 1] ?? 0) << 8) | (bytes[index + 2] ?? 0);
    const characters = Math.min(4, Math.ceil(((bytes.length - index) * 8) / 6));
    for (let position = 0; position < 4; position++) {
      out += position < characters ? base64Alphabet.charAt((chunk >> (18 - position * 6)) & 63) : "=";
    }
  }
  return out;
}

function fromBase64(text: string): Uint8Array | undefined {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const character of text.split("")) {
    const value = base64Values.get(character);
    if (value === undefined) return undefined;
    buffer = ((buffer << 6) | value) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  // Unused trailing bits must be zero: one digest, one spelling (no malleable last character).
  if ((buffer & ((1 << bits) - 1)) !== 0) return undefined;
  return Uint8Array.from(bytes);
}

/** The digest as it appears in a URL: base64url without padding, percent-encoded base64, or lowercase hex. */
export function encodeDigest(digest: Uint8Array, encoding: DigestEncoding): string {
  switch (encoding) {
    case "hex":
      return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
    case "base64":
      return encodeURIComponent(toBase64(digest));
    case "base64url":
      return toBase64(digest).replace(/=+$/, "").replaceAll("+", "-").replaceAll("/", "_");
  }
}

const patterns: Readonly<Record<DigestEncoding, RegExp>> = {
  hex: /^(?:[0-9a-fA-F]{2})+$/,
  base64: /^[A-Za-z0-9+/]+={0,2}$/,
  base64url: /^[A-Za-z0-9_-]+={0,2}$/,
};

/**
 * The bytes of a digest as read from a URL (percent-decoded first; hex in either case; base64
 * padding optional), or `undefined` when the value is not in `encoding`.
 */
export function decodeDigest(raw: string, encoding: DigestEncoding): Uint8Array | undefined {
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if (!patterns[encoding].test(value)) return undefined;
  if (encoding === "hex") return Uint8Array.from(value.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
  const unpadded = value.replace(/=+$/, "");
  if (unpadded.length % 4 === 1) return undefined;
  return fromBase64(unpadded);
}
