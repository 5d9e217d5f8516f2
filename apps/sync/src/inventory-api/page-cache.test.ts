import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { chooseEncoding, matchesEtag, PageCache } from "./page-cache.ts";

describe("chooseEncoding", () => {
  it("prefers br, then gzip, honours q=0 and *", () => {
    expect(chooseEncoding("gzip, deflate, br")).toBe("br");
    expect(chooseEncoding("gzip")).toBe("gzip");
    expect(chooseEncoding("br;q=0, gzip;q=0.5")).toBe("gzip");
    expect(chooseEncoding("*")).toBe("br");
    expect(chooseEncoding("identity")).toBeUndefined();
    expect(chooseEncoding(undefined)).toBeUndefined();
  });
});

describe("matchesEtag", () => {
  it("compares weakly, in lists, and takes *", () => {
    expect(matchesEtag('W/"1.2.abc"', 'W/"1.2.abc"')).toBe(true);
    expect(matchesEtag('"x", "1.2.abc"', 'W/"1.2.abc"')).toBe(true);
    expect(matchesEtag("*", 'W/"1.2.abc"')).toBe(true);
    expect(matchesEtag('W/"1.3.abc"', 'W/"1.2.abc"')).toBe(false);
    expect(matchesEtag(undefined, 'W/"1.2.abc"')).toBe(false);
  });
});

describe("PageCache", () => {
  const big = { surveys: Array.from({ length: 500 }, (_, id) => ({ id, name: `survey ${id}` })) };

  it("builds a page once per version and query, and again when the version moves", async () => {
    const cache = new PageCache();
    let builds = 0;
    const build = () => Promise.resolve(((builds += 1), big));
    const ask = (version: string) =>
      cache.reply({ version, query: "?limit=100", ifNoneMatch: undefined, acceptEncoding: undefined }, build);
    const first = await ask("5.1");
    await ask("5.1");
    expect(builds).toBe(1);
    const moved = await ask("6.2");
    expect(builds).toBe(2);
    expect(moved.headers?.etag).not.toBe(first.headers?.etag);
    expect(JSON.parse(first.bytes?.toString("utf8") ?? "")).toEqual(big);
  });

  it("answers 304 for a matching If-None-Match without building, and compresses large pages when asked", async () => {
    const cache = new PageCache();
    const etag = PageCache.etagOf("5.1", "?limit=100");
    const notModified = await cache.reply(
      { version: "5.1", query: "?limit=100", ifNoneMatch: etag, acceptEncoding: undefined },
      () => Promise.reject(new Error("must not build")),
    );
    expect(notModified).toMatchObject({ status: 304, headers: { etag } });
    const gzipped = await cache.reply(
      { version: "5.1", query: "?limit=100", ifNoneMatch: undefined, acceptEncoding: "gzip" },
      () => Promise.resolve(big),
    );
    expect(gzipped.headers).toMatchObject({ "content-encoding": "gzip", vary: "Accept-Encoding", etag });
    expect(JSON.parse(gunzipSync(gzipped.bytes ?? Buffer.alloc(0)).toString("utf8"))).toEqual(big);
    const small = await cache.reply(
      { version: "5.1", query: "?limit=1", ifNoneMatch: undefined, acceptEncoding: "gzip" },
      () => Promise.resolve({ surveys: [] }),
    );
    expect(small.headers?.["content-encoding"]).toBeUndefined();
  });

  it("holds no more bytes than its bound, compressed copies counted, dropping the oldest pages first", async () => {
    const identityBytes = Buffer.byteLength(JSON.stringify(big));
    const cache = new PageCache({ maxBytes: identityBytes * 2 + 100 });
    const builds: string[] = [];
    const ask = (query: string, acceptEncoding?: string) =>
      cache.reply({ version: "5.1", query, ifNoneMatch: undefined, acceptEncoding }, () =>
        Promise.resolve((builds.push(query), big)),
      );
    await ask("?a");
    await ask("?b");
    expect([cache.size, cache.bytes]).toEqual([2, identityBytes * 2]);
    // The brotli copy of ?b pushes the cache past its bound: ?a, the oldest, goes.
    await ask("?b", "br");
    expect(cache.size).toBe(1);
    expect(cache.bytes).toBeGreaterThan(identityBytes);
    expect(cache.bytes).toBeLessThanOrEqual(identityBytes * 2 + 100);
    await ask("?b");
    await ask("?a");
    expect(builds).toEqual(["?a", "?b", "?a"]);
    // A page larger than the whole bound is served but not kept.
    const tiny = new PageCache({ maxBytes: 100 });
    const reply = await tiny.reply(
      { version: "5.1", query: "?a", ifNoneMatch: undefined, acceptEncoding: undefined },
      () => Promise.resolve(big),
    );
    expect(JSON.parse(reply.bytes?.toString("utf8") ?? "")).toEqual(big);
    expect([tiny.size, tiny.bytes]).toEqual([0, 0]);
  });
});
