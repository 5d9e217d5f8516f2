import type { SyncStore } from "../inventory-store/store.ts";
import { localeOfLanguageName, type PageLocale } from "./page-strings.ts";

/** How long the Languages collection read is reused, in ms: it changes at most once a cycle. */
const LANGUAGES_TTL_MS = 60_000;

/**
 * LanguageId → the page's locale, through the Languages reference collection the sync cycle
 * stores (`{"Languages": [{"Id", "Name"}]}`): the language's name decides (see
 * {@link localeOfLanguageName}). Before the collection was read, or for a language it does not
 * list, the page speaks English.
 */
export class PageLanguages {
  readonly #store: Pick<SyncStore, "getCollection">;
  readonly #now: () => number;
  #read: { readonly at: number; readonly names: Promise<ReadonlyMap<number, string>> } | undefined;

  constructor(store: Pick<SyncStore, "getCollection">, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  /** The locale of a session's language. */
  async localeOf(languageId: number): Promise<PageLocale> {
    const now = this.#now();
    if (this.#read === undefined || now - this.#read.at >= LANGUAGES_TTL_MS) {
      const names = this.#readNames();
      this.#read = { at: now, names };
      // A failed read is not kept: the next page tries again (and speaks English meanwhile).
      names.catch(() => (this.#read = undefined));
    }
    const names = await this.#read.names.catch(() => new Map<number, string>());
    return localeOfLanguageName(names.get(languageId));
  }

  async #readNames(): Promise<ReadonlyMap<number, string>> {
    const record = await this.#store.getCollection("languages");
    const names = new Map<number, string>();
    const list = (record?.body as { Languages?: unknown } | null | undefined)?.Languages;
    if (!Array.isArray(list)) return names;
    for (const item of list as unknown[]) {
      const { Id: id, Name: name } = (item ?? {}) as Record<string, unknown>;
      if ((typeof id === "number" || typeof id === "string") && typeof name === "string") names.set(Number(id), name);
    }
    return names;
  }
}
