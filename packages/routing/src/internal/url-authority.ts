/** What is wrong with the start of a URL: its scheme, or its authority (what precedes the path). */
export type UrlShapeProblem =
  | { readonly kind: "no-scheme" }
  | { readonly kind: "unsupported-scheme"; readonly scheme: string }
  | { readonly kind: "userinfo" }
  | { readonly kind: "authority" };

const schemePattern = /^([A-Za-z][A-Za-z0-9+.-]*):/;
// A registered name (letters of any script, digits, `-`, `.`, `_`, `~`) or a bracketed IPv6
// address, then an optional port. Nothing else: no `@`, no `%`, no `\`, no spaces, no `#`.
const plainAuthority = /^(?:[\p{L}\p{N}._~-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/u;

/**
 * Checks that `url` is `http://` or `https://` followed by a plain `host[:port]`, read from the
 * raw text (a parser would forgive, and so hide, what an attacker relies on: WHATWG reads
 * `http://a\@b` as host `a`, and drops an empty `user@`). The authority ends at the first `/`,
 * `?` or `#`; an `@` in it is user information.
 */
export function httpUrlShapeProblem(url: string): UrlShapeProblem | undefined {
  const scheme = schemePattern.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: "no-scheme" };
  if (scheme !== "http" && scheme !== "https") return { kind: "unsupported-scheme", scheme };
  const afterScheme = url.slice(scheme.length + 1);
  if (!afterScheme.startsWith("//")) return { kind: "authority" };
  const authority = /^[^/?#]*/.exec(afterScheme.slice(2))?.[0] ?? "";
  if (authority.includes("@")) return { kind: "userinfo" };
  if (!plainAuthority.test(authority)) return { kind: "authority" };
  return undefined;
}

/** Whether `text` holds an ASCII control character (a newline, a NUL, DEL). */
export function hasControlCharacters(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
