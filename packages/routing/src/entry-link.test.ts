import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildEntryLink, fillPlaceholders } from "./entry-link.ts";
import { UnfilledPlaceholderError } from "./errors.ts";
import { verifySignedUrl } from "./verify-signed-url.ts";

const disabled = { Enabled: false, Algorithm: "SHA256", QueryParameter: null, EncryptionKey: null };

describe("buildEntryLink", () => {
  it("fills [#vq_tid#] and [#vq_tuid#] in any case, before the # can turn the rest into a fragment", () => {
    const survey = { SurveyUrl: "https://s.example/e?sid=7&tid=[#VQ_TID#]&uid=[#vq_TUID#]" };
    expect(buildEntryLink(survey, { token: "t-1", uid: "r-2" })).toBe("https://s.example/e?sid=7&tid=t-1&uid=r-2");
  });

  it("drops stray quotes after a placeholder and percent-encodes the values", () => {
    const survey = { SurveyUrl: `https://s.example/e?tid=[#vq_tid#]"&uid=[#vq_tuid#]''` };
    expect(buildEntryLink(survey, { token: "a b&c=d", uid: "é/#" })).toBe("https://s.example/e?tid=a%20b%26c%3Dd&uid=%C3%A9%2F%23");
  });

  it("fills a missing uid with nothing and appends extra parameters after the query", () => {
    const survey = { SurveyUrl: "https://s.example/e?uid=[#vq_tuid#]" };
    expect(buildEntryLink(survey, { token: "t" }, { parameters: { src: "sds kit", tid: "t" } })).toBe("https://s.example/e?uid=&src=sds%20kit&tid=t");
    expect(buildEntryLink({ SurveyUrl: "https://s.example/e" }, { token: "t" }, { parameters: { a: "1" } })).toBe("https://s.example/e?a=1");
  });

  it("uses a configured placeholder map instead of the default", () => {
    const survey = { SurveyUrl: "https://s.example/e?rid=[#rid#]&pid=[#PID#]" };
    expect(buildEntryLink(survey, { token: "tok", uid: "u" }, { placeholders: { rid: "token", pid: "uid" } })).toBe("https://s.example/e?rid=tok&pid=u");
  });

  it("refuses a URL that keeps a placeholder nothing fills, naming it", () => {
    const attempt = () => buildEntryLink({ SurveyUrl: "https://s.example/e?tid=[#vq_tid#]&x=[#Other#]" }, { token: "t" });
    expect(attempt).toThrow(UnfilledPlaceholderError);
    expect(attempt).toThrow(/\[#other#\]/);
  });

  it("signs with the account's incoming encryption when it is enabled", () => {
    const survey = { SurveyUrl: "https://s.example/e?tid=[#vq_tid#]" };
    const encryption = { Enabled: true, Algorithm: "SHA256", QueryParameter: "sig", EncryptionKey: "k3y" };
    const link = buildEntryLink(survey, { token: "t1" }, { encryption });
    const expected = createHmac("sha256", "k3y").update("https://s.example/e?tid=t1&").digest("base64url");
    expect(link).toBe(`https://s.example/e?tid=t1&sig=${expected}`);
    expect(verifySignedUrl(link, "k3y", { algorithm: "SHA256", parameter: "sig" }).valid).toBe(true);
    expect(buildEntryLink(survey, { token: "t1" }, { encryption: disabled })).toBe("https://s.example/e?tid=t1");
  });

  it("defaults the parameter to hash when the account leaves QueryParameter unset", () => {
    const encryption = { Enabled: true, Algorithm: "MD5", QueryParameter: null, EncryptionKey: "k" };
    expect(buildEntryLink({ SurveyUrl: "https://s.example/e" }, { token: "t" }, { encryption })).toMatch(/^https:\/\/s\.example\/e\?hash=[\w-]{22}$/);
  });
});

describe("fillPlaceholders", () => {
  it("leaves a URL without placeholders as it is", () => {
    expect(fillPlaceholders("https://s.example/e?x=%5B1%5D#frag", new Map())).toBe("https://s.example/e?x=%5B1%5D#frag");
  });
});
