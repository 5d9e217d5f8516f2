import { LanguagesResponse } from "@sds/schemas";

/** How long the Languages collection read from the store is reused, in ms (it changes once a cycle at most). */
const RELOAD_MS = 60_000;

/**
 * The country a language is spoken in, for the geo rule: `SYNC_LANGUAGE_COUNTRIES` first, else
 * the `CountryCode` of the Languages collection the leader stores (read from the sync store,
 * reused for a minute). Undefined when neither names one: the geo rule then lets the respondent
 * pass.
 */
export function languageCountries(options: {
  readonly configured: ReadonlyMap<number, string> | undefined;
  /** The stored Languages collection's body, undefined while none was stored. */
  readonly readLanguages: () => Promise<unknown>;
  readonly now?: () => number;
}): (languageId: number) => Promise<string | undefined> {
  const now = options.now ?? Date.now;
  let cached: { readonly at: number; readonly countries: Promise<ReadonlyMap<number, string>> } | undefined;
  const collection = (): Promise<ReadonlyMap<number, string>> => {
    if (cached !== undefined && now() - cached.at < RELOAD_MS) return cached.countries;
    const countries = options.readLanguages().then(countriesOf);
    cached = { at: now(), countries };
    countries.catch(() => (cached = undefined));
    return countries;
  };
  return async (languageId) => options.configured?.get(languageId) ?? (await collection()).get(languageId);
}

function countriesOf(body: unknown): ReadonlyMap<number, string> {
  const countries = new Map<number, string>();
  const parsed = LanguagesResponse.safeParse(body);
  if (!parsed.success) return countries;
  for (const language of parsed.data.Languages) {
    const id = Number(language.Id);
    const code = language.CountryCode?.trim().toUpperCase();
    if (Number.isSafeInteger(id) && code !== undefined && /^[A-Z]{2}$/.test(code)) countries.set(id, code);
  }
  return countries;
}
