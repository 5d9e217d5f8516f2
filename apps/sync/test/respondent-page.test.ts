import { afterEach, describe, expect, it, vi } from "vitest";
import type { DatabaseConfig } from "../src/config/config.ts";
import { storeCases } from "./store-cases.ts";
import { startPageService, type PageService } from "./respondent-page-setup.ts";

/*
 * The respondent's page over real HTTP (the outcomes listener, as a browser reaches it): start
 * links good, forged, expired and reused; the steps as server-rendered forms; the headers every
 * /s/* answer carries; the page's languages and size; and the page off without a secret.
 */

const { stores, usable } = storeCases("sds_page");

const services: PageService[] = [];
afterEach(async () => {
  for (const service of services.splice(0).reverse()) await service.close();
});

async function open(config: Parameters<typeof startPageService>[0] = {}, database?: DatabaseConfig) {
  const service = await startPageService(config, database);
  services.push(service);
  return service;
}

const now = () => Math.floor(Date.now() / 1000);
/** A regular browser's user agent: the quality gate refuses the one of Node's fetch as a bot's. */
const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";
const manual = { redirect: "manual", headers: { "user-agent": CHROME } } as const;

/** Posts a form as a browser does. */
function postForm(url: string, fields: [string, string][]): Promise<Response> {
  return fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": CHROME },
    body: new URLSearchParams(fields).toString(),
  });
}

/** The page's answer, checked for the headers every /s/* answer carries. */
async function page(url: string, status = 200): Promise<string> {
  const response = await fetch(url, manual);
  const body = await response.text();
  expect(response.status, body).toBe(status);
  expectPageHeaders(response);
  return body;
}

function expectPageHeaders(response: Response, frameAncestors = "'none'"): void {
  expect(response.headers.get("cache-control")).toBe("no-store");
  expect(response.headers.get("referrer-policy")).toBe("no-referrer");
  expect(response.headers.get("set-cookie")).toBeNull();
  expect(response.headers.get("x-robots-tag")).toBe("noindex, nofollow");
  expect(response.headers.get("content-security-policy")).toContain(`frame-ancestors ${frameAncestors}`);
  expect(response.headers.get("x-frame-options")).toBe(frameAncestors === "'none'" ? "DENY" : null);
}

/** Follows a start link: the 303 to /s/<id>, as a browser would. */
async function start(service: PageService, link: string): Promise<string> {
  const response = await fetch(link, manual);
  expect(response.status, await response.text()).toBe(303);
  expectPageHeaders(response);
  const location = response.headers.get("location") ?? "";
  expect(location).toMatch(/^\/s\/[A-Za-z0-9_-]{22,}$/);
  return `${service.base}${location}`;
}

describe.each(stores)("the respondent page ($name)", (store) => {
  it("takes a respondent from a start link through a question, a survey, its return and a re-route to the end", async (context) => {
    if (!usable(store)) context.skip();
    const service = await open({}, store.database());
    const starts = vi.spyOn(service.harness.service.sessions.sessions, "start");
    const answers = vi.spyOn(service.harness.service.sessions.sessions, "answer");
    const link = service.startLink({ uid: "p-1", languageId: 3, returnUrl: "https://panel.example/done?x=1" });
    const stepUrl = await start(service, link);
    const id = stepUrl.slice(stepUrl.lastIndexOf("/") + 1);
    // The session starts with the respondent's address and user agent (the quality gate's), not with the returnUrl.
    const body = starts.mock.calls[0]?.[0];
    expect(body).toMatchObject({ uid: "p-1", languageId: 3 });
    expect(body?.ip).toMatch(/127\.0\.0\.1/);
    expect(body?.userAgent).toBeDefined();
    expect(body?.returnUrl).toBeUndefined();

    // A question: a labelled radio group posting to the answers route, with the hidden fingerprint field.
    const question = await page(stepUrl);
    expect(question).toContain('<html lang="en">');
    expect(question).toContain("What is your gender?");
    expect(question).toContain(`<form method="post" action="/s/${id}/answers">`);
    expect(question).toMatch(
      /<input type="radio" id="o0" name="answer" value="1" required><label for="o0">Male<\/label>/,
    );
    expect(question).toContain('<input type="hidden" name="fingerprint" value="">');
    expect(Buffer.byteLength(question)).toBeLessThan(30 * 1024);

    // An empty answer comes back to the question with a note; a good one moves on.
    const empty = await postForm(`${stepUrl}/answers`, [["question", "43"]]);
    expect(empty.status).toBe(303);
    expect(empty.headers.get("location")).toBe(`/s/${id}?invalid=1`);
    expect(await page(`${stepUrl}?invalid=1`)).toContain('role="alert"');
    const wrong = await postForm(`${stepUrl}/answers`, [
      ["question", "43"],
      ["answer", "7"],
    ]);
    expect(wrong.headers.get("location")).toBe(`/s/${id}?invalid=1`);
    const answered = await postForm(`${stepUrl}/answers`, [
      ["question", "43"],
      ["answer", "2"],
      ["fingerprint", "fp-0123456789abcdef"],
    ]);
    expect(answered.status).toBe(303);
    expectPageHeaders(answered);
    expect(answered.headers.get("location")).toBe(`/s/${id}`);
    expect(answers).toHaveBeenCalledWith(id, { "43": ["2"] }, { fingerprint: "fp-0123456789abcdef", fromPage: true });

    // A survey: one button, a form POST to /go (with the fingerprint), its length from Loi.
    const survey = await page(stepUrl);
    expect(survey).toContain(`<form method="post" action="/s/${id}/go">`);
    expect(survey).toContain("It takes about 12 minutes.");
    expect(Buffer.byteLength(survey)).toBeLessThan(30 * 1024);
    const surveyCsp = (await fetch(stepUrl, manual)).headers.get("content-security-policy") ?? "";
    expect(surveyCsp).toContain(`form-action 'self' ${service.marketplaceOrigin}`);
    const go = await postForm(`${stepUrl}/go`, [["fingerprint", "fp-0123456789abcdef"]]);
    expect(go.status).toBe(303);
    const entry = go.headers.get("location") ?? "";
    expect(entry.startsWith(`${service.marketplaceOrigin}/s/8100?rid=`)).toBe(true);
    expect(answers).toHaveBeenLastCalledWith(id, {}, { fingerprint: "fp-0123456789abcdef" });

    // The marketplace ends the survey; its redirect reaches sds-sync's return, which lands on the page.
    const terminated = await service.marketplace.respond(entry, "terminate");
    const returned = await fetch(terminated.location ?? "", manual);
    expect(returned.status).toBe(303);
    expect(returned.headers.get("location")).toBe(`/s/${id}`);
    const rerouted = await page(stepUrl);
    expect(rerouted).toContain("Thank you for taking part in the last survey.");
    const next = (await postForm(`${stepUrl}/go`, [])).headers.get("location") ?? "";
    expect(next).not.toBe(entry);
    const completed = await service.marketplace.respond(next, "complete");
    expect((await fetch(completed.location ?? "", manual)).headers.get("location")).toBe(`/s/${id}`);

    // The end: a sentence for the reason and the start link's returnUrl, with session=<id>.
    const end = await page(stepUrl);
    expect(end).toContain("You completed a survey.");
    expect(end).toContain(`href="https://panel.example/done?x=1&amp;session=${id}"`);
    expect(Buffer.byteLength(end)).toBeLessThan(30 * 1024);
    // The start link, used again after its session ended: refused.
    expect(await page(link, 403)).toContain("already used");
  });

  it("lands a start link used again on its open session, and refuses forged, altered and expired links", async (context) => {
    if (!usable(store)) context.skip();
    const service = await open({}, store.database());
    // An apostrophe (which browsers send as %27) works: the signer encodes it.
    const link = service.startLink({ uid: "p-2 O'Brien", languageId: 3 });
    // A link checker's HEAD starts no session.
    const starts = vi.spyOn(service.harness.service.sessions.sessions, "start");
    expect((await fetch(link, { ...manual, method: "HEAD" })).status).toBe(200);
    expect(starts).not.toHaveBeenCalled();
    const first = await start(service, link);
    expect(await start(service, link)).toBe(first);
    const id = first.slice(first.lastIndexOf("/") + 1);
    // A HEAD of the page (a preview, a link checker) decides no step: no entry is issued.
    const advances = vi.spyOn(service.harness.service.sessions.sessions, "get");
    expect((await fetch(first, { ...manual, method: "HEAD" })).status).toBe(200);
    expect((await fetch(`${service.base}/s/no-such-session`, { ...manual, method: "HEAD" })).status).toBe(404);
    expect(advances).not.toHaveBeenCalled();
    expect((await service.harness.request(`/v1/sessions/${id}/end`, { method: "POST" })).status).toBe(200);
    expect(await page(link, 403)).toContain("This link was already used for a session that has ended.");

    const forged = service.startLink({ uid: "p-3", languageId: 3 }, "not-the-service-secret-0123456789abcdef");
    expect(await page(forged, 403)).toContain("This link is not valid.");
    const altered = service.startLink({ uid: "p-3", languageId: 3 }).replace("uid=p-3", "uid=p-4");
    expect(await page(altered, 403)).toContain("This link is not valid.");
    const expired = service.startLink({ uid: "p-3", languageId: 3, ts: now() - 601 });
    expect(await page(expired, 403)).toContain("This link has expired.");
    expect(await page(`${service.base}/s/start?uid=p-3&languageId=3`, 403)).toContain("This link is not valid.");
    expect(await page(`${service.base}/s/no-such-session`, 404)).toContain("does not exist");
    // Signed, but with fields POST /v1/sessions would refuse: no session, and no script URL to link to.
    starts.mockClear();
    for (const fields of [{ device: "tv" }, { returnUrl: "javascript:alert(1)" }, { uid: "a\u0001b" }])
      expect(
        await page(service.startLink({ uid: "p-5", languageId: 3, ...fields }), 400),
        JSON.stringify(fields),
      ).toContain("This link is not valid.");
    expect(starts).not.toHaveBeenCalled();
  });
});

describe("the respondent page and the quality gate", () => {
  it("shows a respondent the gate refused at the start the end of their session, and nothing more", async () => {
    const service = await open();
    const bot = {
      redirect: "manual",
      headers: { "user-agent": "Googlebot/2.1 (+http://www.google.com/bot.html)" },
    } as const;
    const started = await fetch(service.startLink({ uid: "p-bot", languageId: 3 }), { ...bot });
    expect(started.status).toBe(303);
    const stepUrl = `${service.base}${started.headers.get("location") ?? ""}`;
    const end = await fetch(stepUrl, { ...bot });
    expect(end.status).toBe(200);
    expectPageHeaders(end);
    const html = await end.text();
    expect(html).toContain("We cannot offer you more surveys at this time.");
    // Which rule refused is the supplier's to know (GET /v1/sessions/{id}), not the page's to tell.
    expect(html.slice(html.indexOf("<main>"))).not.toMatch(/bot/i);
    const id = stepUrl.slice(stepUrl.lastIndexOf("/") + 1);
    const session = (await (await service.harness.request(`/v1/sessions/${id}`)).json()) as { next: unknown };
    expect(session.next).toEqual({ kind: "done", reason: "excluded", gate: "bot" });
  });
});

describe("the respondent page's settings", () => {
  it("may be framed by SYNC_EMBED_ORIGINS only, and by no one without it", async () => {
    const service = await open({ embedOrigins: ["https://panel.example", "https://app.panel.example:8443"] });
    const response = await fetch(service.startLink({ uid: "p-frame", languageId: 3 }), manual);
    expectPageHeaders(response, "https://panel.example https://app.panel.example:8443");
    const step = await fetch(`${service.base}${response.headers.get("location") ?? ""}`, manual);
    expectPageHeaders(step, "https://panel.example https://app.panel.example:8443");
  });

  it("sends no Referer and keeps nothing in caches from the router's own 404 and 405 under /s/ either", async () => {
    const service = await open();
    const location = await start(service, service.startLink({ uid: "p-router", languageId: 3 }));
    for (const [path, method, status] of [
      [`${location}/nothing-here`, "GET", 404],
      [location, "DELETE", 405],
    ] as const) {
      const response = await fetch(path, { ...manual, method });
      expect(response.status).toBe(status);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    }
  });

  it("speaks the session's language (German, French, Spanish, English) by the Languages collection", async () => {
    const service = await open();
    // German: the question's form (surveys in language 9 ask it), its labels and button in German.
    const germanUrl = await start(service, service.startLink({ uid: "p-de", languageId: 9 }));
    const german = await page(germanUrl);
    for (const text of ['lang="de"', "<h1>Eine Frage</h1>", "Wählen Sie eine Antwort.", ">Weiter</button>"])
      expect(german).toContain(text);
    const germanId = germanUrl.slice(germanUrl.lastIndexOf("/") + 1);
    expect((await service.harness.request(`/v1/sessions/${germanId}/end`, { method: "POST" })).status).toBe(200);
    expect(await page(germanUrl)).toContain("Diese Sitzung ist beendet.");
    // The others: languages without surveys here, so their sessions end at once (no-survey).
    const sentences = {
      8: ['lang="fr"', "Il n’y a pas d’enquête pour vous en ce moment."],
      10: ['lang="es"', "Ahora no hay ninguna encuesta para usted."],
      4: ['lang="en"', "There is no survey for you right now."],
    } as const;
    for (const [languageId, expected] of Object.entries(sentences)) {
      const body = await page(
        await start(service, service.startLink({ uid: `p-${languageId}`, languageId: Number(languageId) })),
      );
      for (const text of expected) expect(body).toContain(text);
    }
    expect(await page(service.startLink({ uid: "p-old", languageId: 9, ts: now() - 3600 }), 403)).toContain(
      "This link has expired.",
    );
  });

  it("is off without SYNC_SESSION_SECRET, and /readyz says so", async () => {
    const service = await open({ sessionSecret: undefined });
    const link = service.startLink({ uid: "p-off", languageId: 3 });
    expect(await page(link, 404)).toContain("The respondent page is turned off on this service.");
    expect(await page(`${service.base}/s/anything`, 404)).toContain("turned off");
    const ready = (await (await service.harness.request("/readyz")).json()) as { warnings?: string[] };
    expect(ready.warnings).toContainEqual(expect.stringContaining("SYNC_SESSION_SECRET is not set"));
    const on = await open();
    const readyOn = (await (await on.harness.request("/readyz")).json()) as { warnings?: string[] };
    expect(readyOn.warnings ?? []).not.toContainEqual(expect.stringContaining("SYNC_SESSION_SECRET"));
  });
});
