import { createHash } from "node:crypto";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { BoundedCache } from "../common/bounded-cache.ts";
import type { Reply } from "../http/respond.ts";

/*
 * Serialised pages of GET /v1/surveys, kept per query and data version. The store's data changes
 * only when a cycle commits (or a closure is confirmed, which moves the feed), so the feed
 * sequence plus the last successful run id name a version of the whole inventory: while it
 * holds, a page is served from bytes serialised (and compressed) once, and `If-None-Match` with
 * its ETag gets 304 without reading a page at all.
 */

/** Pages of this size or more are compressed when the client accepts it. */
export const COMPRESS_MIN_BYTES = 8 * 1024;

interface CachedPage {
  readonly etag: string;
  readonly identity: Buffer;
  gzip?: Buffer;
  br?: Buffer;
}

/** Options of {@link PageCache}. */
export interface PageCacheOptions {
  /** Most bytes kept, every encoding of every page counted. @default {@link DEFAULT_PAGE_CACHE_BYTES} */
  readonly maxBytes?: number;
}

/**
 * The default bound of the page cache: a dozen pages of 1,000 surveys, or hundreds of the
 * default 100. A reader walking the whole inventory by cursor asks for each page once, so
 * holding more buys nothing but resident memory.
 */
export const DEFAULT_PAGE_CACHE_BYTES = 8 * 1024 * 1024;

const pageBytes = (page: CachedPage) =>
  page.identity.byteLength + (page.gzip?.byteLength ?? 0) + (page.br?.byteLength ?? 0);

/** Which encoding to send for an `Accept-Encoding` header: br, then gzip, else none. */
export function chooseEncoding(acceptEncoding: string | undefined): "br" | "gzip" | undefined {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? "").toLowerCase().split(",")) {
    const [name = "", ...parameters] = part.trim().split(";");
    const quality = parameters
      .map((parameter) => /^\s*q=([\d.]+)\s*$/.exec(parameter)?.[1])
      .find((value) => value !== undefined);
    accepted.set(name.trim(), quality === undefined ? 1 : Number(quality));
  }
  const weight = (name: string) => accepted.get(name) ?? accepted.get("*") ?? 0;
  if (weight("br") > 0) return "br";
  if (weight("gzip") > 0) return "gzip";
  return undefined;
}

/** Whether an `If-None-Match` header names `etag` (weak comparison, `*` included). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || bare(tag) === bare(etag));
}

/** Serialised pages by query, for the current data version only, least recently built dropped first past the bound. */
export class PageCache {
  #version = "";
  readonly #pages: BoundedCache<string, CachedPage>;

  constructor(options: PageCacheOptions = {}) {
    this.#pages = new BoundedCache(options.maxBytes ?? DEFAULT_PAGE_CACHE_BYTES, pageBytes);
  }

  /** Bytes held, every encoding counted. */
  get bytes(): number {
    return this.#pages.bytes;
  }

  /** Pages held. */
  get size(): number {
    return this.#pages.size;
  }

  /** The ETag of a query at a data version. */
  static etagOf(version: string, query: string): string {
    return `W/"${version}.${createHash("sha1").update(query).digest("base64url").slice(0, 16)}"`;
  }

  /**
   * The reply for `query` at `version`: 304 when `ifNoneMatch` names it, else the page (built by
   * `build` when not cached), compressed when the client accepts it and the page is large.
   */
  async reply(
    request: { version: string; query: string; ifNoneMatch: string | undefined; acceptEncoding: string | undefined },
    build: () => Promise<unknown>,
  ): Promise<Reply> {
    const etag = PageCache.etagOf(request.version, request.query);
    if (matchesEtag(request.ifNoneMatch, etag)) return { status: 304, body: null, headers: { etag } };
    if (request.version !== this.#version) {
      this.#pages.clear();
      this.#version = request.version;
    }
    let page = this.#pages.get(request.query);
    if (!page) {
      page = { etag, identity: Buffer.from(JSON.stringify(await build())) };
      this.#remember(request.version, request.query, page);
    }
    const encoding =
      page.identity.byteLength >= COMPRESS_MIN_BYTES ? chooseEncoding(request.acceptEncoding) : undefined;
    const headers = { etag, vary: "Accept-Encoding" };
    if (encoding === "br") {
      if (!page.br) {
        page.br = brotliCompressSync(page.identity, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: page.identity.byteLength },
        });
        this.#pages.recount(request.query, page);
      }
      return { status: 200, body: null, bytes: page.br, headers: { ...headers, "content-encoding": "br" } };
    }
    if (encoding === "gzip") {
      if (!page.gzip) {
        page.gzip = gzipSync(page.identity, { level: 6 });
        this.#pages.recount(request.query, page);
      }
      return { status: 200, body: null, bytes: page.gzip, headers: { ...headers, "content-encoding": "gzip" } };
    }
    return { status: 200, body: null, bytes: page.identity, headers };
  }

  #remember(version: string, query: string, page: CachedPage): void {
    // A page built while the version moved on belongs to no one.
    if (version === this.#version) this.#pages.set(query, page);
  }
}
