import type { EncryptionSettings, Survey } from "@sds/schemas";
import { UnfilledPlaceholderError, UnsafeSurveyUrlError, type UnsafeSurveyUrlReason } from "./errors.ts";
import { hasControlCharacters, httpUrlShapeProblem } from "./internal/url-authority.ts";
import { encryptionSigning, type SignatureSchemeOptions } from "./signature-scheme.ts";
import { signUrl } from "./sign-url.ts";

/** The values an entry link carries: which one fills a placeholder. */
export type EntryLinkValue = "token" | "uid";

/**
 * The placeholders filled by default: `[#vq_tid#]` and `[%RID%]`, the per-entry transaction
 * token, and `[#vq_tuid#]`, the respondent's id in the supplier's system. Names are compared
 * case-insensitively and the map serves both spellings (`[#rid#]` is filled like `[%RID%]`).
 */
export const defaultEntryPlaceholders: Readonly<Record<string, EntryLinkValue>> = {
  vq_tid: "token",
  vq_tuid: "uid",
  rid: "token",
};

/** What one entry carries. */
export interface EntryLinkInput {
  /** The transaction token of this entry; the marketplace echoes it in the outcome. */
  readonly token: string;
  /** The respondent's id in the supplier's system. @default "" */
  readonly uid?: string;
}

/** Options of {@link buildEntryLink}. */
export interface EntryLinkOptions {
  /**
   * Placeholder name (as in `[#name#]` or `[%NAME%]`, any case) → the value that fills it. A
   * given map replaces the default one: include `rid`, `vq_tid`, `vq_tuid` as needed.
   * @default defaultEntryPlaceholders
   */
  readonly placeholders?: Readonly<Record<string, EntryLinkValue>>;
  /** Query parameters to add, percent-encoded, before the signature. */
  readonly parameters?: Readonly<Record<string, string>>;
  /** The account's `IncomingEncryption`: when enabled with a key, the link is signed with it. */
  readonly encryption?: EncryptionSettings;
  /** Changes to the scheme read from `encryption` (for a marketplace whose scheme differs from the default). */
  readonly scheme?: SignatureSchemeOptions;
}

/** Why a survey URL cannot become an entry link, as {@link entryLinkProblem} reports it. */
export type EntryLinkProblemCode = "unfilled-placeholder" | UnsafeSurveyUrlReason;

/** The answer of {@link entryLinkProblem} when the URL cannot become an entry link. */
export interface EntryLinkProblem {
  /** What is wrong. */
  readonly code: EntryLinkProblemCode;
  /** A sentence for people: the same text {@link buildEntryLink} would throw. Never repeats user information. */
  readonly message: string;
}

// `[#name#]` or `[%name%]` in any case, with spaces inside tolerated and stray quotes after it swallowed.
const placeholderPattern = /\[(#|%)\s*([A-Za-z0-9_.-]+)\s*\1\]["'\u2019\u201D]*/g;

interface PlaceholderScan {
  readonly text: string;
  /** Names (lowercased) and spellings of the placeholders nothing fills, each once. */
  readonly unfilled: ReadonlyMap<string, string>;
}

function replacePlaceholders(url: string, value: (name: string) => string | undefined): PlaceholderScan {
  const unfilled = new Map<string, string>();
  const text = url.replace(placeholderPattern, (_match, mark: string, name: string) => {
    const filling = value(name.toLowerCase());
    if (filling !== undefined) return filling;
    if (!unfilled.has(name.toLowerCase())) unfilled.set(name.toLowerCase(), `[${mark}${name}${mark}]`);
    return "";
  });
  return { text, unfilled };
}

/**
 * Replaces every `[#name#]` and `[%name%]` placeholder of `url` (names compared
 * case-insensitively; stray quotes right after a placeholder dropped) with its value,
 * percent-encoded. This works on the text, before any URL parsing: a parser would take
 * everything from the `#` on for a fragment.
 *
 * @throws UnfilledPlaceholderError when a placeholder has no value.
 * @example
 * ```ts
 * fillPlaceholders("https://s.example/e?tid=[#VQ_TID#]&rid=[%RID%]", new Map([["vq_tid", "a b"], ["rid", "7"]]));
 * // "https://s.example/e?tid=a%20b&rid=7"
 * ```
 */
export function fillPlaceholders(url: string, values: ReadonlyMap<string, string>): string {
  const lowercased = new Map([...values].map(([name, value]) => [name.toLowerCase(), value]));
  const scan = replacePlaceholders(url, (name) => {
    const value = lowercased.get(name);
    return value === undefined ? undefined : encodeURIComponent(value);
  });
  if (scan.unfilled.size > 0)
    throw new UnfilledPlaceholderError([...scan.unfilled.keys()], [...scan.unfilled.values()]);
  return scan.text;
}

/** The scheme and authority check of a survey URL, on its text with every placeholder neutralised. */
function unsafeSurveyUrl(surveyUrl: string): UnsafeSurveyUrlError | undefined {
  // A placeholder stands for a percent-encoded value: it can add no `@`, `/` or `:`.
  const { text } = replacePlaceholders(surveyUrl, () => "x");
  // Control characters (a newline) would let a link break out of a header or an HTML attribute.
  if (hasControlCharacters(text))
    return new UnsafeSurveyUrlError("malformed-url", "the survey URL holds control characters");
  const problem = httpUrlShapeProblem(text);
  if (problem === undefined) return undefined;
  switch (problem.kind) {
    case "unsupported-scheme":
      return new UnsafeSurveyUrlError(
        "unsupported-scheme",
        `the survey URL is a ${problem.scheme}: URL; only http: and https: URLs become entry links`,
      );
    case "userinfo":
      return new UnsafeSurveyUrlError(
        "userinfo",
        "the survey URL has user information (user@ or user:password@) before its host; entry links never do",
      );
    default:
      return new UnsafeSurveyUrlError("malformed-url", "the survey URL is not an http(s)://host[:port]/… URL");
  }
}

function placeholderValues(options: Pick<EntryLinkOptions, "placeholders">): ReadonlyMap<string, EntryLinkValue> {
  return new Map(
    Object.entries(options.placeholders ?? defaultEntryPlaceholders).map(([name, value]) => [
      name.toLowerCase(),
      value,
    ]),
  );
}

/**
 * Why `surveyUrl` cannot become an entry link, or `undefined` when it can: the check
 * {@link buildEntryLink} makes, without a token and without building anything (to flag a
 * survey when it is stored or shown rather than when a respondent is waiting).
 *
 * @example
 * ```ts
 * entryLinkProblem("https://s.example/e?rid=[%RID%]&g=[#gid#]");
 * // { code: "unfilled-placeholder", message: "the survey URL holds placeholders that nothing fills: [#gid#]" }
 * entryLinkProblem("javascript:alert(1)")?.code; // "unsupported-scheme"
 * ```
 */
export function entryLinkProblem(
  surveyUrl: string,
  options: Pick<EntryLinkOptions, "placeholders"> = {},
): EntryLinkProblem | undefined {
  const unsafe = unsafeSurveyUrl(surveyUrl);
  if (unsafe !== undefined) return { code: unsafe.reason, message: unsafe.message };
  const values = placeholderValues(options);
  const { unfilled } = replacePlaceholders(surveyUrl, (name) => (values.has(name) ? "" : undefined));
  if (unfilled.size === 0) return undefined;
  return {
    code: "unfilled-placeholder",
    message: new UnfilledPlaceholderError([...unfilled.keys()], [...unfilled.values()]).message,
  };
}

function appendParameters(url: string, parameters: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(parameters).map(
    ([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
  );
  if (pairs.length === 0) return url;
  const hashIndex = url.indexOf("#");
  const base = hashIndex < 0 ? url : url.slice(0, hashIndex);
  const fragment = hashIndex < 0 ? "" : url.slice(hashIndex);
  const separator = !base.includes("?") ? "?" : /[?&]$/.test(base) ? "" : "&";
  return `${base}${separator}${pairs.join("&")}${fragment}`;
}

/**
 * Builds the link that sends a respondent into a survey: checks that its `SurveyUrl` is a plain
 * `http(s)` URL, fills its placeholders, adds `parameters`, and signs the result with
 * `encryption` when it is enabled.
 *
 * @throws UnsafeSurveyUrlError when `SurveyUrl` is not `http:`/`https:`, has `user@` before its host, or is no URL.
 * @throws UnfilledPlaceholderError when `SurveyUrl` holds a placeholder (`[#…#]` or `[%…%]`) that the map does not fill.
 * @throws WeakKeyError when the signing key is empty.
 * @example
 * ```ts
 * const link = buildEntryLink(survey, { token: "t-123", uid: "r-9" }, { encryption: account.IncomingEncryption });
 * ```
 */
export function buildEntryLink(
  survey: Pick<Survey, "SurveyUrl">,
  input: EntryLinkInput,
  options: EntryLinkOptions = {},
): string {
  const unsafe = unsafeSurveyUrl(survey.SurveyUrl);
  if (unsafe !== undefined) throw unsafe;
  const values = new Map<string, string>();
  for (const [name, value] of placeholderValues(options))
    values.set(name, value === "token" ? input.token : (input.uid ?? ""));
  const url = appendParameters(fillPlaceholders(survey.SurveyUrl, values), options.parameters ?? {});
  const signing = options.encryption === undefined ? undefined : encryptionSigning(options.encryption, options.scheme);
  return signing === undefined ? url : signUrl(url, signing.key, signing.scheme);
}
