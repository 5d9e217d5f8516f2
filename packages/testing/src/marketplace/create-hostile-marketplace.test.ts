import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { UnfilledPlaceholderError, UnsafeSurveyUrlError, buildEntryLink, signUrl, verifySignedUrl } from "@sds/routing";
import { Survey } from "@sds/schemas";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeSupplierApi } from "../fake/create-fake-supplier-api.ts";
import { createHostileMarketplace } from "./create-hostile-marketplace.ts";
import type { HostileCallback } from "./hostile-types.ts";
import { hostileSurveyInits, hostileSurveyUrls } from "./hostile-survey-urls.ts";

const KEY = "outgoing-secret-key-01";
const SCHEME = { algorithm: "SHA256", parameter: "sig" } as const;
const signing = { key: KEY, scheme: SCHEME };

interface Received {
  readonly method: string;
  readonly target: string;
  readonly host: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * A minimal outcome receiver, as sds-sync's works: the signature is verified over
 * `http://` + Host + the raw target (or, when `pinned`, its own origin + target); 403 when it fails,
 * else 200 with the outcome and token it would record (400 when the token does not decode).
 */
async function startReceiver(pinned = false) {
  const received: Received[] = [];
  let origin = "";
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const target = request.url ?? "";
      const host = request.headers.host ?? "";
      received.push({
        method: request.method ?? "",
        target,
        host,
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const verdict = verifySignedUrl(`${pinned ? origin : `http://${host}`}${target}`, KEY, SCHEME);
      if (!verdict.valid) return void response.writeHead(403).end(verdict.reason);
      const outcome = /^\/v1\/outcomes\/([^/?]*)/.exec(target)?.[1] ?? "";
      const raw = /[?&]vq_token=([^&]*)/.exec(target)?.[1] ?? "";
      let token: string;
      try {
        token = decodeURIComponent(raw);
      } catch {
        return void response.writeHead(400).end("bad token");
      }
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ outcome, token }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  opened.push(
    () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  );
  return { origin, received, server };
}

const opened: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of opened.splice(0)) await close();
});

const byVariant = (attempts: readonly HostileCallback[]) =>
  new Map(attempts.map((attempt) => [attempt.variant, attempt]));
const json = (attempt: HostileCallback | undefined) =>
  JSON.parse(attempt?.response?.body ?? "null") as { outcome: string; token: string } | null;

describe("createHostileMarketplace", () => {
  it("sends the genuine callback signed as the real marketplace does, so a receiver accepts it", async () => {
    const receiver = await startReceiver();
    const hostile = createHostileMarketplace({ receiverUrl: receiver.origin, signing });
    const attempt = await hostile.genuineCallback({ token: "t 1", outcome: "overquota" });
    expect(attempt).toMatchObject({ variant: "genuine", refused: false, error: undefined, response: { status: 200 } });
    expect(json(attempt)).toEqual({ outcome: "overquota", token: "t 1" });
    expect(receiver.received[0]?.target).toMatch(/^\/v1\/outcomes\/overquota\?vq_token=t%201&sig=[\w-]{43}$/);
    expect(receiver.received[0]?.host).toBe(new URL(receiver.origin).host);
    expect(JSON.stringify(attempt)).not.toContain(KEY);
  });

  it("forges signatures eight ways, each reaching the receiver as planned and refused by it", async () => {
    const receiver = await startReceiver();
    const attempts = await createHostileMarketplace({ receiverUrl: receiver.origin, signing }).forgedCallbacks({
      token: "t-2",
    });
    expect(attempts.map((attempt) => attempt.variant)).toEqual([
      "unsigned",
      "wrong-key",
      "garbage-signature",
      "empty-signature",
      "truncated-signature",
      "parameter-after-signature",
      "signature-of-another-url",
      "signature-parameter-case",
    ]);
    for (const attempt of attempts)
      expect({ variant: attempt.variant, status: attempt.response?.status, refused: attempt.refused }).toEqual({
        variant: attempt.variant,
        status: 403,
        refused: true,
      });
    expect(receiver.received.map((request) => request.target)).toEqual(
      attempts.map((attempt) => attempt.request.target),
    );
    expect(receiver.received[0]?.target).toBe("/v1/outcomes/complete?vq_token=t-2");
    expect(receiver.received[7]?.target).toMatch(/&SIG=/);
  });

  it("replays a signed callback as another token, outcome, host or method, and the Host trick passes a receiver that trusts Host", async () => {
    const receiver = await startReceiver();
    const hostile = createHostileMarketplace({ receiverUrl: receiver.origin, signing });
    const attempts = byVariant(await hostile.replayedCallbacks({ token: "t-3", otherToken: "t-4" }));
    const genuine = hostile.sign(hostile.callbackUrl("complete", "t-3"));
    const status = (variant: string) => attempts.get(variant)?.response?.status;
    const seen = (variant: string) =>
      receiver.received.find(
        (request) =>
          request.target === attempts.get(variant)?.request.target &&
          request.host === attempts.get(variant)?.request.host,
      );

    expect(status("exact")).toBe(200);
    expect(status("other-token")).toBe(403);
    expect(seen("other-token")?.target).toMatch(/vq_token=t-4&sig=/);
    expect(status("other-outcome")).toBe(403);
    expect(seen("other-outcome")?.target).toMatch(/^\/v1\/outcomes\/terminate\?vq_token=t-3&sig=/);
    expect(status("signed-for-other-host")).toBe(403);
    expect(status("encoded-path")).toBe(403);
    expect(seen("encoded-path")?.target).toMatch(/^\/v1\/outcomes\/%74erminate\?/);

    // What a receiver that rebuilds the URL from Host lets through: the attacks are real.
    expect(status("other-host-header")).toBe(200);
    expect(seen("other-host-header")?.host).toBe(`other-receiver.example:${new URL(receiver.origin).port}`);
    // The fragment trick no longer passes even such a receiver: @sds/routing refuses a signed URL with a fragment.
    expect(status("host-header-fragment")).toBe(403);
    expect(seen("host-header-fragment")?.host).toBe(`${genuine.slice("http://".length)}#`);
    expect(seen("host-header-fragment")?.target).toBe("/v1/outcomes/terminate?vq_token=t-4");

    const post = receiver.received.find((request) => request.method === "POST");
    expect(post).toMatchObject({ method: "POST", body: "vq_token=t-4&outcome=terminate" });
    expect(post?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(status("post-with-other-token")).toBe(200);
  });

  it("is refused, but for the exact replay, by a receiver that verifies against its own public URL", async () => {
    const pinned = await startReceiver(true);
    const attempts = await createHostileMarketplace({ receiverUrl: pinned.origin, signing }).replayedCallbacks({
      token: "t-5",
      otherToken: "t-6",
      outcome: "terminate",
    });
    expect(attempts.find((attempt) => attempt.variant === "other-outcome")?.request.target).toMatch(
      /^\/v1\/outcomes\/complete\?vq_token=t-5&/,
    );
    expect(attempts.filter((attempt) => !attempt.refused).map((attempt) => attempt.variant)).toEqual([
      "exact",
      "post-with-other-token",
    ]);
    expect(json(attempts.find((attempt) => attempt.variant === "post-with-other-token"))).toEqual({
      outcome: "terminate",
      token: "t-5",
    });
  });

  it("sends an outcome before any entry, outcome flips for one token, and callbacks as browsers send them", async () => {
    const receiver = await startReceiver();
    const hostile = createHostileMarketplace({ receiverUrl: receiver.origin, signing });
    const first = await hostile.callbackBeforeEntry();
    const second = await hostile.callbackBeforeEntry({ outcome: "security" });
    expect(json(first)?.token).toMatch(/^never-issued-/);
    expect(json(second)?.token).not.toBe(json(first)?.token);
    expect(json(second)?.outcome).toBe("security");

    const flips = await hostile.outcomeFlips("t-7");
    expect(flips.map((attempt) => json(attempt))).toEqual([
      { outcome: "complete", token: "t-7" },
      { outcome: "terminate", token: "t-7" },
      { outcome: "complete", token: "t-7" },
    ]);

    receiver.received.splice(0);
    const browser = await hostile.browserCallbacks({ token: "t-8" });
    expect(browser.map((attempt) => attempt.variant)).toEqual([
      "img",
      "no-cors-post",
      "form-post",
      "navigation",
      "opaque-origin",
    ]);
    expect(
      receiver.received.map((request) => [
        request.method,
        request.headers["sec-fetch-site"],
        request.headers["sec-fetch-dest"],
        request.headers.origin,
      ]),
    ).toEqual([
      ["GET", "cross-site", "image", undefined],
      ["POST", "cross-site", "empty", "https://attacker.example"],
      ["POST", "cross-site", "document", "https://attacker.example"],
      ["GET", "cross-site", "document", undefined],
      ["POST", "cross-site", "empty", "null"],
    ]);
    for (const request of receiver.received)
      expect(request.headers.referer).toBe("https://attacker.example/leaked.html");
    // Validly signed: only a receiver that looks at the browser headers refuses them.
    for (const attempt of browser) expect(attempt.response?.status).toBe(200);
  });

  it("sends an 8,000-character token, and an oversized one that the HTTP server itself refuses is reported as refused", async () => {
    const receiver = await startReceiver();
    const hostile = createHostileMarketplace({ receiverUrl: receiver.origin, signing });
    const long = await hostile.oversizedToken();
    expect(json(long)?.token).toBe("x".repeat(8000));
    expect(receiver.received[0]?.target.length).toBeGreaterThan(8000);
    const huge = await hostile.oversizedToken({ length: 20_000 });
    expect(huge).toMatchObject({ refused: true, response: { status: 431 } });
    expect(() => hostile.oversizedToken({ length: 0 })).toThrow(RangeError);
  });

  it("sends NUL bytes, lone surrogates and other malformed tokens as raw escapes, validly signed", async () => {
    const receiver = await startReceiver();
    const attempts = byVariant(
      await createHostileMarketplace({ receiverUrl: receiver.origin, signing }).malformedTokens("terminate"),
    );
    const target = (variant: string) =>
      receiver.received.find((request) => request.target === attempts.get(variant)?.request.target)?.target ?? "";
    expect(target("nul-byte")).toMatch(/^\/v1\/outcomes\/terminate\?vq_token=tok%00en&sig=/);
    expect(target("lone-high-surrogate")).toContain("vq_token=tok%ED%A0%80en&");
    expect(target("lone-low-surrogate")).toContain("vq_token=tok%ED%B0%80en&");
    expect(target("crlf")).toContain("%0D%0A");
    expect(target("missing-token")).toMatch(/^\/v1\/outcomes\/terminate\?sig=/);
    expect(target("repeated-token")).toContain("vq_token=first&vq_token=second&sig=");
    for (const attempt of attempts.values()) expect(attempt.response?.status).not.toBe(403);
    // The lone surrogate does not decode: this receiver answers 400 rather than failing.
    expect(attempts.get("lone-high-surrogate")?.response?.status).toBe(400);
  });

  it("without signing, genuine callbacks are unsigned and forged ones carry the attacker's key", async () => {
    const receiver = await startReceiver();
    const hostile = createHostileMarketplace({ receiverUrl: `${receiver.origin}/`, tokenParameter: "tid" });
    expect(hostile.callbackUrl("complete", "a&b")).toBe(`${receiver.origin}/v1/outcomes/complete?tid=a%26b`);
    expect((await hostile.genuineCallback({ token: "t-9" })).request.target).toBe("/v1/outcomes/complete?tid=t-9");
    const forged = byVariant(await hostile.forgedCallbacks({ token: "t-9" }));
    expect(forged.get("wrong-key")?.request.target).toBe(
      `/v1/outcomes/complete?tid=t-9&hash=${signUrl(hostile.callbackUrl("complete", "t-9"), "attacker-key-not-the-accounts").split("hash=")[1] ?? ""}`,
    );
  });

  it("reports a receiver that does not answer as an error, not a refusal, and refuses a receiver URL that is not http(s)", async () => {
    const receiver = await startReceiver();
    const closed = receiver.origin;
    await new Promise<void>((resolve) =>
      receiver.server.close(() => {
        resolve();
      }),
    );
    const attempt = await createHostileMarketplace({ receiverUrl: closed, signing }).genuineCallback({ token: "t" });
    expect(attempt).toMatchObject({
      response: undefined,
      refused: false,
      error: expect.stringMatching(/ECONNREFUSED/) as unknown,
    });
    expect(() => createHostileMarketplace({ receiverUrl: "ftp://x.example" })).toThrow(RangeError);
    expect(() => createHostileMarketplace({ receiverUrl: "/v1/outcomes" })).toThrow(RangeError);
  });
});

describe("hostileSurveyInits", () => {
  it("gives one survey per hostile SurveyUrl that the schema and the fake accept, with the placeholders and hosts described", () => {
    const inits = hostileSurveyInits({ firstSurveyId: 500 });
    const api = createFakeSupplierApi({ suppliers: [{ supplierId: 1001, apiKey: "k", surveys: inits }] });
    const surveys = api.listSurveys(1001);
    expect(surveys.map((survey) => survey.Name)).toEqual(
      Object.keys(hostileSurveyUrls).map((kind) => `hostile: ${kind}`),
    );
    for (const survey of surveys) expect(Survey.safeParse(survey).success).toBe(true);
    const url = (kind: string) => surveys.find((survey) => survey.Name === `hostile: ${kind}`)?.SurveyUrl ?? "";
    expect(url("rid-placeholder")).toBe("https://survey.example.com/s/500?rid=[%RID%]");
    expect(url("unknown-placeholder")).toContain("[%FOO%]");
    expect(url("javascript")).toMatch(/^javascript:alert\(1\)/);
    expect(url("data")).toMatch(/^data:text\/html,<script>/);
    expect(new URL(url("userinfo")).username).toBe("user");
    expect(new URL(url("userinfo-host-spoof")).hostname).toBe("attacker.example");
    expect(() => buildEntryLink({ SurveyUrl: url("unknown-vq-placeholder") }, { token: "t" })).toThrow(
      UnfilledPlaceholderError,
    );
    expect(() => buildEntryLink({ SurveyUrl: url("javascript") }, { token: "t" })).toThrow(UnsafeSurveyUrlError);
    expect(hostileSurveyInits({ kinds: ["data"] })).toHaveLength(1);
  });
});
