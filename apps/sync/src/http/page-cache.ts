import { createHash } from "node:crypto";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Reply } from "./respond.ts";

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
  /** Most bytes kept (identity bodies). @default 32 MiB */
  readonly maxBytes?: number;
}

/** Which encoding to send for an `Accept-Encoding` header: br, then gzip, else none. */
export function chooseEncoding(acceptEncoding: string | undefined): "br" | "gzip" | undefined {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? "").toLowerCase().split(",")) {
    const [name = "", ...parameters] = part.trim().split(";");
    const quality = parameters.map((parameter) => /^\s*q=([\d.]+)\s*$/.exec(parameter)?.[1]).find((value) => value !== undefined);
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

/** Serialised pages by query, for the current data version only. */
export class PageCache {
  readonly #maxBytes: number;
  #version = "";
  #bytes = 0;
  readonly #pages = new Map<string, CachedPage>();

  constructor(options: PageCacheOptions = {}) {
    this.#maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  }

  /** The ETag of a query at a data version. */
  static etagOf(version: string, query: string): string {
    return `W/"${version}.${createHash("sha1").update(query).digest("base64url").slice(0, 16)}"`;
  }

  /**
   * The reply for `query` at `version`: 304 when `ifNoneMatch` names it, else the page (built by
   * `build` when not cached), compressed when the client accepts it and the page is large.
   */
  async reply(request: { version: string; query: string; ifNoneMatch: string | undefined; acceptEncoding: string | undefined }, build: () => Promise<unknown>): Promise<Reply> {
    const etag = PageCache.etagOf(request.version, request.query);
    if (matchesEtag(request.ifNoneMatch, etag)) return { status: 304, body: null, headers: { etag } };
    if (request.version !== this.#version) {
      this.#pages.clear();
      this.#bytes = 0;
      this.#version = request.version;
    }
    let page = this.#pages.get(request.query);
    if (!page) {
      page = { etag, identity: Buffer.from(JSON.stringify(await build())) };
      this.#remember(request.version, request.query, page);
    }
    const encoding = page.identity.byteLength >= COMPRESS_MIN_BYTES ? chooseEncoding(request.acceptEncoding) : undefined;
    const headers = { etag, vary: "Accept-Encoding" };
    if (encoding === "br") {
      page.br ??= brotliCompressSync(page.identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: page.identity.byteLength } });
      return { status: 200, body: null, bytes: page.br, headers: { ...headers, "content-encoding": "br" } };
    }
    if (encoding === "gzip") {
      page.gzip ??= gzipSync(page.identity, { level: 6 });
      return { status: 200, body: null, bytes: page.gzip, headers: { ...headers, "content-encoding": "gzip" } };
    }
    return { status: 200, body: null, bytes: page.identity, headers };
  }

  #remember(version: string, query: string, page: CachedPage): void {
    // A page built while the version moved on belongs to no one.
    if (version !== this.#version) return;
    while (this.#bytes + page.identity.byteLength > this.#maxBytes && this.#pages.size > 0) {
      const oldest = this.#pages.keys().next().value as string;
      this.#bytes -= this.#pages.get(oldest)?.identity.byteLength ?? 0;
      this.#pages.delete(oldest);
    }
    this.#pages.set(query, page);
    this.#bytes += page.identity.byteLength;
  }
}
