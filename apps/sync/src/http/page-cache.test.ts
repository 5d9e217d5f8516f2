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
    const build = () => Promise.resolve((builds += 1, big));
    const ask = (version: string) => cache.reply({ version, query: "?limit=100", ifNoneMatch: undefined, acceptEncoding: undefined }, build);
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
    const notModified = await cache.reply({ version: "5.1", query: "?limit=100", ifNoneMatch: etag, acceptEncoding: undefined }, () => Promise.reject(new Error("must not build")));
    expect(notModified).toMatchObject({ status: 304, headers: { etag } });
    const gzipped = await cache.reply({ version: "5.1", query: "?limit=100", ifNoneMatch: undefined, acceptEncoding: "gzip" }, () => Promise.resolve(big));
    expect(gzipped.headers).toMatchObject({ "content-encoding": "gzip", vary: "Accept-Encoding", etag });
    expect(JSON.parse(gunzipSync(gzipped.bytes ?? Buffer.alloc(0)).toString("utf8"))).toEqual(big);
    const small = await cache.reply({ version: "5.1", query: "?limit=1", ifNoneMatch: undefined, acceptEncoding: "gzip" }, () => Promise.resolve({ surveys: [] }));
    expect(small.headers?.["content-encoding"]).toBeUndefined();
  });
});
