import type { EncryptionSettings, Survey } from "@sds/schemas";
import { UnfilledPlaceholderError } from "./errors.ts";
import { encryptionSigning, type SignatureSchemeOptions } from "./signature-scheme.ts";
import { signUrl } from "./sign-url.ts";

/** The values an entry link carries: which one fills a placeholder. */
export type EntryLinkValue = "token" | "uid";

/**
 * The placeholders filled by default: `[#vq_tid#]`, the per-entry transaction token, and
 * `[#vq_tuid#]`, the respondent's id in the supplier's system.
 */
export const defaultEntryPlaceholders: Readonly<Record<string, EntryLinkValue>> = { vq_tid: "token", vq_tuid: "uid" };

/** What one entry carries. */
export interface EntryLinkInput {
  /** The transaction token of this entry; the marketplace echoes it in the outcome. */
  readonly token: string;
  /** The respondent's id in the supplier's system. @default "" */
  readonly uid?: string;
}

/** Options of {@link buildEntryLink}. */
export interface EntryLinkOptions {
  /** Placeholder name (as in `[#name#]`, any case) → the value that fills it. @default defaultEntryPlaceholders */
  readonly placeholders?: Readonly<Record<string, EntryLinkValue>>;
  /** Query parameters to add, percent-encoded, before the signature. */
  readonly parameters?: Readonly<Record<string, string>>;
  /** The account's `IncomingEncryption`: when enabled with a key, the link is signed with it. */
  readonly encryption?: EncryptionSettings;
  /** Changes to the scheme read from `encryption` (for a marketplace whose scheme differs from the default). */
  readonly scheme?: SignatureSchemeOptions;
}

// `[#name#]` in any case, with spaces inside tolerated and stray quotes after it swallowed.
const placeholderPattern = /\[#\s*([A-Za-z0-9_.-]+)\s*#\]["'\u2019\u201D]*/g;

/**
 * Replaces every `[#name#]` placeholder of `url` (names compared case-insensitively; stray
 * quotes right after a placeholder dropped) with its value, percent-encoded. This works on the
 * text, before any URL parsing: a parser would take everything from the `#` on for a fragment.
 *
 * @throws UnfilledPlaceholderError when a placeholder has no value.
 * @example
 * ```ts
 * fillPlaceholders("https://s.example/e?tid=[#VQ_TID#]", new Map([["vq_tid", "a b"]]));
 * // "https://s.example/e?tid=a%20b"
 * ```
 */
export function fillPlaceholders(url: string, values: ReadonlyMap<string, string>): string {
  const lowercased = new Map([...values].map(([name, value]) => [name.toLowerCase(), value]));
  const unfilled = new Set<string>();
  const filled = url.replace(placeholderPattern, (_match, name: string) => {
    const value = lowercased.get(name.toLowerCase());
    if (value === undefined) {
      unfilled.add(name.toLowerCase());
      return "";
    }
    return encodeURIComponent(value);
  });
  if (unfilled.size > 0) throw new UnfilledPlaceholderError([...unfilled]);
  return filled;
}

function appendParameters(url: string, parameters: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(parameters).map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  if (pairs.length === 0) return url;
  const hashIndex = url.indexOf("#");
  const base = hashIndex < 0 ? url : url.slice(0, hashIndex);
  const fragment = hashIndex < 0 ? "" : url.slice(hashIndex);
  const separator = !base.includes("?") ? "?" : /[?&]$/.test(base) ? "" : "&";
  return `${base}${separator}${pairs.join("&")}${fragment}`;
}

/**
 * Builds the link that sends a respondent into a survey: fills the placeholders of its
 * `SurveyUrl`, adds `parameters`, and signs the result with `encryption` when it is enabled.
 *
 * @throws UnfilledPlaceholderError when `SurveyUrl` holds a placeholder that the map does not fill.
 * @example
 * ```ts
 * const link = buildEntryLink(survey, { token: "t-123", uid: "r-9" }, { encryption: account.IncomingEncryption });
 * ```
 */
export function buildEntryLink(survey: Pick<Survey, "SurveyUrl">, input: EntryLinkInput, options: EntryLinkOptions = {}): string {
  const values = new Map<string, string>();
  for (const [name, value] of Object.entries(options.placeholders ?? defaultEntryPlaceholders)) {
    values.set(name, value === "token" ? input.token : (input.uid ?? ""));
  }
  const url = appendParameters(fillPlaceholders(survey.SurveyUrl, values), options.parameters ?? {});
  const signing = options.encryption === undefined ? undefined : encryptionSigning(options.encryption, options.scheme);
  return signing === undefined ? url : signUrl(url, signing.key, signing.scheme);
}
