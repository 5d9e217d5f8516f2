import type { StoredLanguages } from "../inventory-store/stored-languages.ts";
import { localeOfLanguageName, type PageLocale } from "./page-strings.ts";

/**
 * LanguageId → the page's locale, through the Languages reference collection the sync cycle
 * stores: the language's name decides (see {@link localeOfLanguageName}). Before the collection
 * was read, or for a language it does not list, the page speaks English.
 */
export class PageLanguages {
  readonly #languages: StoredLanguages;

  constructor(languages: StoredLanguages) {
    this.#languages = languages;
  }

  /** The locale of a session's language. */
  async localeOf(languageId: number): Promise<PageLocale> {
    return localeOfLanguageName((await this.#languages()).get(languageId)?.name);
  }
}
