/** A URL split where a signature goes: the text before the fragment, and the fragment. */
export function splitFragment(url: string): { readonly base: string; readonly fragment: string } {
  const index = url.indexOf("#");
  return index < 0 ? { base: url, fragment: "" } : { base: url.slice(0, index), fragment: url.slice(index) };
}

/** Where the digest parameter sits in a URL (without its fragment), read from the raw text. */
export interface DigestParameterPosition {
  /** Index of the `?` or `&` before the parameter name. */
  readonly separatorIndex: number;
  /** The raw (still percent-encoded) value. */
  readonly value: string;
  /** Whether further parameters follow the digest (they would not be covered by it). */
  readonly followedByParameters: boolean;
}

/**
 * Finds the first `parameter=` in the query of `base`, comparing names exactly on the raw text:
 * nothing is decoded or re-encoded, so the signed prefix is byte for byte what was sent.
 */
export function findDigestParameter(base: string, parameter: string): DigestParameterPosition | undefined {
  const queryStart = base.indexOf("?");
  if (queryStart < 0) return undefined;
  let separatorIndex = queryStart;
  while (separatorIndex >= 0) {
    const nameStart = separatorIndex + 1;
    const next = base.indexOf("&", nameStart);
    const end = next < 0 ? base.length : next;
    const pair = base.slice(nameStart, end);
    const equals = pair.indexOf("=");
    const name = equals < 0 ? pair : pair.slice(0, equals);
    if (name === parameter) {
      return { separatorIndex, value: equals < 0 ? "" : pair.slice(equals + 1), followedByParameters: next >= 0 };
    }
    separatorIndex = next;
  }
  return undefined;
}

/** The names of the query parameters of `base`, raw, in order. */
export function queryParameterNames(base: string): string[] {
  const queryStart = base.indexOf("?");
  if (queryStart < 0) return [];
  return base
    .slice(queryStart + 1)
    .split("&")
    .map((pair) => pair.split("=", 1)[0] ?? "")
    .filter((name) => name !== "");
}
