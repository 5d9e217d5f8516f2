/*
 * The Languages reference collection the sync cycle stores, read as sds-sync's own features use
 * it: the respondent page's locale (a language's name) and the quality gate's geo rule (its
 * country). One reader, reused for a minute: the collection changes once a cycle at most.
 */

/** How long one read of the stored collection is reused, in ms. */
const RELOAD_MS = 60_000;

/** One language of the stored collection: what of it the page and the gate use. */
export interface StoredLanguage {
  readonly name?: string;
  /** ISO 3166-1 alpha-2, upper-case. */
  readonly countryCode?: string;
}

/** The stored languages by LanguageId (empty while none was stored, or when the read failed). */
export type StoredLanguages = () => Promise<ReadonlyMap<number, StoredLanguage>>;

/**
 * The stored Languages collection by LanguageId, through `readBody` (the stored collection's
 * body, undefined while none was stored). Each language is taken on its own: one malformed entry
 * loses that entry, not the others. A failed read is not kept: the next call reads again.
 */
export function storedLanguages(readBody: () => Promise<unknown>, now: () => number = Date.now): StoredLanguages {
  let cached: { readonly at: number; readonly languages: Promise<ReadonlyMap<number, StoredLanguage>> } | undefined;
  return async () => {
    if (cached === undefined || now() - cached.at >= RELOAD_MS) {
      const languages = readBody().then(languagesOf);
      cached = { at: now(), languages };
      languages.catch(() => (cached = undefined));
    }
    return cached.languages.catch(() => new Map<number, StoredLanguage>());
  };
}

function languagesOf(body: unknown): ReadonlyMap<number, StoredLanguage> {
  const languages = new Map<number, StoredLanguage>();
  const list = (body as { Languages?: unknown } | null | undefined)?.Languages;
  if (!Array.isArray(list)) return languages;
  for (const item of list as unknown[]) {
    const { Id: id, Name: name, CountryCode: country } = (item ?? {}) as Record<string, unknown>;
    const languageId = typeof id === "number" || typeof id === "string" ? Number(id) : NaN;
    if (!Number.isSafeInteger(languageId)) continue;
    const code = typeof country === "string" ? country.trim().toUpperCase() : undefined;
    languages.set(languageId, {
      ...(typeof name === "string" ? { name } : {}),
      ...(code !== undefined && /^[A-Z]{2}$/.test(code) ? { countryCode: code } : {}),
    });
  }
  return languages;
}
