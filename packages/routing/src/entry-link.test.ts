import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildEntryLink, entryLinkProblem, fillPlaceholders } from "./entry-link.ts";
import { isRoutingError, UnfilledPlaceholderError, UnsafeSurveyUrlError } from "./errors.ts";
import { verifySignedUrl } from "./verify-signed-url.ts";

const disabled = { Enabled: false, Algorithm: "SHA256", QueryParameter: null, EncryptionKey: null };

describe("buildEntryLink", () => {
  it("fills [#vq_tid#] and [#vq_tuid#] in any case, before the # can turn the rest into a fragment", () => {
    const survey = { SurveyUrl: "https://s.example/e?sid=7&tid=[#VQ_TID#]&uid=[#vq_TUID#]" };
    expect(buildEntryLink(survey, { token: "t-1", uid: "r-2" })).toBe("https://s.example/e?sid=7&tid=t-1&uid=r-2");
  });

  it("drops stray quotes after a placeholder and percent-encodes the values", () => {
    const survey = { SurveyUrl: `https://s.example/e?tid=[#vq_tid#]"&uid=[#vq_tuid#]''` };
    expect(buildEntryLink(survey, { token: "a b&c=d", uid: "é/#" })).toBe(
      "https://s.example/e?tid=a%20b%26c%3Dd&uid=%C3%A9%2F%23",
    );
  });

  it("fills a missing uid with nothing and appends extra parameters after the query", () => {
    const survey = { SurveyUrl: "https://s.example/e?uid=[#vq_tuid#]" };
    expect(buildEntryLink(survey, { token: "t" }, { parameters: { src: "sds kit", tid: "t" } })).toBe(
      "https://s.example/e?uid=&src=sds%20kit&tid=t",
    );
    expect(buildEntryLink({ SurveyUrl: "https://s.example/e" }, { token: "t" }, { parameters: { a: "1" } })).toBe(
      "https://s.example/e?a=1",
    );
  });

  it("uses a configured placeholder map instead of the default", () => {
    const survey = { SurveyUrl: "https://s.example/e?rid=[#rid#]&pid=[#PID#]" };
    expect(buildEntryLink(survey, { token: "tok", uid: "u" }, { placeholders: { rid: "token", pid: "uid" } })).toBe(
      "https://s.example/e?rid=tok&pid=u",
    );
  });

  it("refuses a URL that keeps a placeholder nothing fills, naming it", () => {
    const attempt = () =>
      buildEntryLink({ SurveyUrl: "https://s.example/e?tid=[#vq_tid#]&x=[#Other#]" }, { token: "t" });
    expect(attempt).toThrow(UnfilledPlaceholderError);
    expect(attempt).toThrow(/\[#Other#\]/);
  });

  // The sandbox's surveys (packages/testing's survey factory) carry `?rid=[%RID%]` in two of three.
  it("fills [%RID%] with the token by default, in any case", () => {
    expect(
      buildEntryLink({ SurveyUrl: "https://survey.example.com/s/7?rid=[%RID%]" }, { token: "t 1", uid: "u" }),
    ).toBe("https://survey.example.com/s/7?rid=t%201");
    expect(buildEntryLink({ SurveyUrl: "https://s.example/e?rid=[%rid%]&tid=[#vq_tid#]" }, { token: "t" })).toBe(
      "https://s.example/e?rid=t&tid=t",
    );
  });

  it("fills [%NAME%] from the same configurable placeholder map as [#name#]", () => {
    const survey = { SurveyUrl: "https://s.example/e?rid=[%RID%]&pid=[%Pid%]" };
    expect(buildEntryLink(survey, { token: "tok", uid: "u1" }, { placeholders: { rid: "uid", pid: "token" } })).toBe(
      "https://s.example/e?rid=u1&pid=tok",
    );
  });

  it("refuses a URL that keeps a [%NAME%] placeholder nothing fills, naming it as written", () => {
    const attempt = () => buildEntryLink({ SurveyUrl: "https://s.example/e?rid=[%RID%]&g=[%GROUP%]" }, { token: "t" });
    expect(attempt).toThrow(UnfilledPlaceholderError);
    expect(attempt).toThrow(/\[%GROUP%\]/);
    expect(() =>
      buildEntryLink(
        { SurveyUrl: "https://s.example/e?rid=[%RID%]" },
        { token: "t" },
        { placeholders: { vq_tid: "token" } },
      ),
    ).toThrow(/\[%RID%\]/);
  });

  it("refuses survey URLs that are not plain http(s) URLs, without repeating a password", () => {
    const refused: Record<string, string> = {
      "javascript:alert(document.cookie)//[#vq_tid#]": "unsupported-scheme",
      "data:text/html,<script>alert(1)</script>": "unsupported-scheme",
      "ftp://s.example/e?tid=[#vq_tid#]": "unsupported-scheme",
      "http://user@s.example/e?tid=[#vq_tid#]": "userinfo",
      "https://admin:hunter2-password@s.example/e": "userinfo",
      "https://s.example\\@evil.example/e": "userinfo",
      "not a url": "malformed-url",
      "": "malformed-url",
      "https:s.example/e": "malformed-url",
      "https://s.example/e?x=1\r\nSet-Cookie: a=b": "malformed-url",
    };
    for (const [SurveyUrl, reason] of Object.entries(refused)) {
      let thrown: unknown;
      try {
        buildEntryLink({ SurveyUrl }, { token: "t" });
      } catch (error) {
        thrown = error;
      }
      expect(thrown, SurveyUrl).toBeInstanceOf(UnsafeSurveyUrlError);
      expect(isRoutingError(thrown)).toBe(true);
      expect(thrown).toMatchObject({ name: "UnsafeSurveyUrlError", reason });
      expect(String(thrown)).not.toContain("hunter2");
    }
    expect(buildEntryLink({ SurveyUrl: "HTTPS://S.example:8443/e?tid=[#vq_tid#]" }, { token: "t" })).toBe(
      "HTTPS://S.example:8443/e?tid=t",
    );
  });

  it("signs an entry link with a key shorter than 16 characters, and leaves it unsigned with an empty one", () => {
    const encryption = { Enabled: true, Algorithm: "SHA256", QueryParameter: "sig", EncryptionKey: "k3y" };
    const link = buildEntryLink({ SurveyUrl: "https://s.example/e" }, { token: "t" }, { encryption });
    expect(verifySignedUrl(link, "k3y", { algorithm: "SHA256", parameter: "sig" })).toEqual({ valid: true });
    expect(
      buildEntryLink(
        { SurveyUrl: "https://s.example/e" },
        { token: "t" },
        { encryption: { ...encryption, EncryptionKey: "" } },
      ),
    ).toBe("https://s.example/e");
  });

  it("signs with the account's incoming encryption when it is enabled", () => {
    const survey = { SurveyUrl: "https://s.example/e?tid=[#vq_tid#]" };
    const encryption = {
      Enabled: true,
      Algorithm: "SHA256",
      QueryParameter: "sig",
      EncryptionKey: "entry-link-key-01",
    };
    const link = buildEntryLink(survey, { token: "t1" }, { encryption });
    const expected = createHmac("sha256", "entry-link-key-01")
      .update("https://s.example/e?tid=t1&")
      .digest("base64url");
    expect(link).toBe(`https://s.example/e?tid=t1&sig=${expected}`);
    expect(verifySignedUrl(link, "entry-link-key-01", { algorithm: "SHA256", parameter: "sig" }).valid).toBe(true);
    expect(buildEntryLink(survey, { token: "t1" }, { encryption: disabled })).toBe("https://s.example/e?tid=t1");
  });

  it("defaults the parameter to hash when the account leaves QueryParameter unset", () => {
    const encryption = { Enabled: true, Algorithm: "MD5", QueryParameter: null, EncryptionKey: "entry-link-key-01" };
    expect(buildEntryLink({ SurveyUrl: "https://s.example/e" }, { token: "t" }, { encryption })).toMatch(
      /^https:\/\/s\.example\/e\?hash=[\w-]{22}$/,
    );
  });
});

describe("fillPlaceholders", () => {
  it("leaves a URL without placeholders as it is", () => {
    expect(fillPlaceholders("https://s.example/e?x=%5B1%5D#frag", new Map())).toBe(
      "https://s.example/e?x=%5B1%5D#frag",
    );
  });

  it("fills the [%NAME%] form too and refuses one left unfilled", () => {
    expect(fillPlaceholders("https://s.example/e?rid=[%RID%]", new Map([["rid", "a/b"]]))).toBe(
      "https://s.example/e?rid=a%2Fb",
    );
    expect(() => fillPlaceholders("https://s.example/e?rid=[% RID %]", new Map())).toThrow(UnfilledPlaceholderError);
  });
});

describe("entryLinkProblem", () => {
  it("accepts every SurveyUrl form of the sandbox under the default placeholders", () => {
    for (const SurveyUrl of [
      "https://survey.example.com/s/6?tid=[#vq_tid#]&uid=[#vq_tuid#]",
      `https://survey.example.com/s/3?lang=en&TID=[#VQ_TID#]"&uid=[#Vq_Tuid#]`,
      "https://survey.example.com/s/1?rid=[%RID%]",
    ]) {
      expect(entryLinkProblem(SurveyUrl), SurveyUrl).toBeUndefined();
    }
  });

  it("reports what buildEntryLink would refuse, with the same message, without a token", () => {
    const cases: [string, string][] = [
      ["https://s.example/e?rid=[%RID%]&g=[#gid#]", "unfilled-placeholder"],
      ["javascript:alert(1)", "unsupported-scheme"],
      ["http://u:p@s.example/e", "userinfo"],
      ["s.example/e?rid=[%RID%]", "malformed-url"],
    ];
    for (const [SurveyUrl, code] of cases) {
      const problem = entryLinkProblem(SurveyUrl);
      expect(problem?.code, SurveyUrl).toBe(code);
      expect(() => buildEntryLink({ SurveyUrl }, { token: "t" })).toThrow(problem?.message ?? "no problem reported");
    }
    expect(entryLinkProblem("https://s.example/e?rid=[%RID%]&g=[#gid#]")?.message).toBe(
      "the survey URL holds placeholders that nothing fills: [#gid#]",
    );
  });

  it("checks placeholders against the given map", () => {
    expect(entryLinkProblem("https://s.example/e?rid=[%RID%]", { placeholders: { vq_tid: "token" } })?.code).toBe(
      "unfilled-placeholder",
    );
    expect(entryLinkProblem("https://s.example/e?g=[%GID%]", { placeholders: { gid: "uid" } })).toBeUndefined();
  });
});
