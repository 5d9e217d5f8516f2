import type { StoredLanguages } from "../inventory-store/stored-languages.ts";

/**
 * The country a language is spoken in, for the geo rule: `SYNC_LANGUAGE_COUNTRIES` first, else
 * the `CountryCode` of the Languages collection the leader stores. Undefined when neither names
 * one: the geo rule then lets the respondent pass.
 */
export function languageCountries(options: {
  readonly configured: ReadonlyMap<number, string> | undefined;
  readonly languages: StoredLanguages;
}): (languageId: number) => Promise<string | undefined> {
  return async (languageId) =>
    options.configured?.get(languageId) ?? (await options.languages()).get(languageId)?.countryCode;
}
