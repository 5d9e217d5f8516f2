import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import type { RespondentOutcome } from "@sds/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storeCases } from "./store-cases.ts";
import { startPageService, type PageService } from "./respondent-page-setup.ts";
import { chromiumPath, DESKTOP, horizontalOverflow, launchChromium, screenshot } from "./status-page-browser.ts";

/*
 * The respondent page as a respondent meets it, in headless Chromium: a start link through a
 * question, a survey at the sandbox marketplace (whose redirect reaches sds-sync's return, which
 * lands on the page), a re-route after the terminate, and the complete; with JavaScript and
 * without; by keyboard only; at 360 and 1280 px; axe on every step; a forged link and a framing
 * origin that is not listed refused.
 */

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
/** A regular Chrome's user agent: the quality gate may take HeadlessChrome for a bot. */
const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";
const PHONE = { width: 360, height: 740 } as const;

/** A page of another origin (on loopback too: Chromium keeps public pages from framing loopback) that frames `src()`. */
async function framingHost(src: () => string): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(`<!doctype html><title>host</title><iframe title="survey" src="${src()}"></iframe>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}

interface Respondent {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Every URL the browser asked for. */
  readonly requests: string[];
}

/** The stores the page is checked on: the embedded one, and PostgreSQL (skipped outside CI when it is down). */
const { stores, usable } = storeCases("sds_page_browser");

describe.each(stores)("the respondent page in headless Chromium ($name)", (store) => {
  if (!chromiumPath) {
    it.skip("needs Chromium (/usr/bin/chromium)");
    return;
  }
  let service: PageService;
  let browser: Browser;
  let embedder: Awaited<ReturnType<typeof framingHost>>;
  let stranger: Awaited<ReturnType<typeof framingHost>>;
  let framed = 0;
  const framedLink = () => service.startLink({ uid: `framed-${++framed}`, languageId: 3 });
  const shots: string[] = [];
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    if (!usable(store)) return;
    embedder = await framingHost(framedLink);
    stranger = await framingHost(framedLink);
    service = await startPageService({ embedOrigins: [embedder.origin] }, store.database());
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    if (!usable(store)) return;
    for (const context of contexts) await context.close();
    await browser.close();
    await service.close();
    await embedder.close();
    await stranger.close();
    console.info(`respondent page screenshots:\n${shots.join("\n")}`);
  });

  /**
   * A respondent's browser (entry links lead to the sandbox marketplace). One Chromium is one
   * device to the fingerprint: the time zone tells the respondents' devices apart.
   */
  async function respondent(timezoneId: string, javaScript = true): Promise<Respondent> {
    const context = await browser.newContext({
      userAgent: CHROME,
      javaScriptEnabled: javaScript,
      viewport: DESKTOP,
      timezoneId,
    });
    contexts.push(context);
    const requests: string[] = [];
    context.on("request", (request) => requests.push(request.url()));
    const page = await context.newPage();
    return { page, context, requests };
  }

  /** At 360 and 1280 px: no horizontal scroll, a screenshot each; with JavaScript, axe finds nothing serious. */
  async function checkStep(page: Page, name: string, javaScript = true): Promise<void> {
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      if (javaScript)
        await expect
          .poll(() => horizontalOverflow(page), { message: `${name}: no horizontal scroll at ${viewport.width} px` })
          .toBeLessThanOrEqual(0);
      shots.push(await screenshot(page, `respondent-page-${name}-${viewport.width}`));
    }
    if (!javaScript) return;
    // Evaluated through the DevTools protocol: the page's CSP allows no script of the test's (nor should it).
    await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      const result = await (
        window as unknown as {
          axe: { run: () => Promise<{ violations: { id: string; impact: string | null; help: string }[] }> };
        }
      ).axe.run();
      return result.violations.map(({ id, impact, help }) => ({ id, impact, help }));
    });
    expect(
      violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical"),
      name,
    ).toEqual([]);
  }

  /** Tells the marketplace how the survey the page offers ends (the session's step names its token). */
  async function plan(page: Page, outcome: RespondentOutcome): Promise<void> {
    const id = new URL(page.url()).pathname.split("/").at(-1) ?? "";
    const session = (await (await service.harness.request(`/v1/sessions/${id}`)).json()) as {
      next: { kind: string; token?: string };
    };
    expect(session.next.kind).toBe("survey");
    service.marketplace.plan(session.next.token ?? "", outcome);
  }

  /** Answers the first question (gender) once the page's script has filled in the device fingerprint. */
  async function answerGenderWithFingerprint(page: Page): Promise<void> {
    await page.waitForFunction(
      () => (document.querySelector<HTMLInputElement>('input[name="fingerprint"]')?.value ?? "") !== "",
    );
    await page.getByLabel("Female").check();
    await page.getByRole("button", { name: "Next" }).click();
  }

  async function heading(page: Page): Promise<string> {
    return (await page.locator("h1").textContent()) ?? "";
  }

  it("takes a respondent through a question, a survey, its return, a re-route and the complete, with JavaScript", async (test) => {
    if (!usable(store)) test.skip();
    const { page, context, requests } = await respondent("Europe/Berlin");
    const answers = (await import("vitest")).vi.spyOn(service.harness.service.sessions.sessions, "answer");
    const response = await page.goto(
      service.startLink({ uid: "browser-1", languageId: 3, returnUrl: "https://panel.example/done" }),
    );
    expect(response?.status()).toBe(200);
    expect(await heading(page)).toBe("A question");
    await checkStep(page, "question");
    await page.getByLabel("Female").check();
    // The script fills the hidden fingerprint field; the form carries it with the answer.
    await page.waitForFunction(
      () => (document.querySelector<HTMLInputElement>('input[name="fingerprint"]')?.value ?? "") !== "",
    );
    await page.getByRole("button", { name: "Next" }).click();
    await page.waitForURL(/\/s\/[A-Za-z0-9_-]+$/);
    expect(await heading(page)).toBe("A survey for you");
    expect(await page.locator("main").textContent()).toContain("It takes about 12 minutes.");
    const [, , client] = answers.mock.calls.at(-1) ?? [];
    expect(client?.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    await checkStep(page, "survey");
    await page.waitForFunction(
      () => (document.querySelector<HTMLInputElement>('input[name="fingerprint"]')?.value ?? "") !== "",
    );
    await plan(page, "terminate");
    await page.getByRole("button", { name: "Start the survey" }).click();
    // The marketplace terminates it and redirects to sds-sync's return, which lands on the page: the next survey.
    await page.waitForURL(/\/s\/[A-Za-z0-9_-]+$/);
    expect(await page.locator("main").textContent()).toContain("Thank you for taking part in the last survey.");
    await checkStep(page, "rerouted");
    await plan(page, "complete");
    await page.getByRole("button", { name: "Start the survey" }).click();
    await page.waitForURL(/\/s\/[A-Za-z0-9_-]+$/);
    expect(await heading(page)).toBe("Thank you");
    expect(await page.locator("main").textContent()).toContain("You completed a survey.");
    expect(await page.getByRole("link", { name: "Continue" }).getAttribute("href")).toMatch(
      /^https:\/\/panel\.example\/done\?session=/,
    );
    await checkStep(page, "done");
    // Nothing was asked of any origin but sds-sync and the survey; no cookie was set.
    const origins = new Set(requests.map((url) => new URL(url).origin));
    expect([...origins].sort()).toEqual([new URL(service.base).origin, service.marketplaceOrigin].sort());
    expect(await context.cookies()).toEqual([]);
    answers.mockRestore();
  }, 120_000);

  it("works the same without JavaScript: forms and redirects only", async (context) => {
    if (!usable(store)) context.skip();
    const { page } = await respondent("Europe/Paris", false);
    await page.goto(service.startLink({ uid: "browser-2", languageId: 3 }));
    expect(await heading(page)).toBe("A question");
    await checkStep(page, "question-nojs", false);
    await page.getByLabel("Female").check();
    await page.getByRole("button", { name: "Next" }).click();
    await page.waitForURL(/\/s\/[A-Za-z0-9_-]+$/);
    expect(await heading(page)).toBe("A survey for you");
    await plan(page, "terminate");
    await page.getByRole("button", { name: "Start the survey" }).click();
    await page.waitForURL(/\/s\/[A-Za-z0-9_-]+$/);
    expect(await page.locator("main").textContent()).toContain("Thank you for taking part in the last survey.");
    await plan(page, "complete");
    await page.getByRole("button", { name: "Start the survey" }).click();
    await page.waitForURL(/\/s\/[A-Za-z0-9_-]+$/);
    expect(await page.locator("main").textContent()).toContain("You completed a survey.");
    await checkStep(page, "done-nojs", false);
  }, 120_000);

  it("can be used by keyboard alone: Tab, Space and Enter", async (context) => {
    if (!usable(store)) context.skip();
    const { page } = await respondent("America/New_York");
    await page.goto(service.startLink({ uid: "browser-3", languageId: 3 }));
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("type"))).toBe("radio");
    await page.keyboard.press("Space");
    expect(await page.locator("#o0").isChecked()).toBe(true);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Next");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/s\/[A-Za-z0-9_-]+$/);
    await page.locator("h1", { hasText: "A survey for you" }).waitFor();
    await plan(page, "complete");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Start the survey");
    await page.keyboard.press("Enter");
    await page.locator("h1", { hasText: "Thank you" }).waitFor();
    expect(await page.locator("main").textContent()).toContain("You completed a survey.");
  }, 120_000);

  it("tells the quality gate the device: a second uid on the first respondent's device is refused", async (context) => {
    if (!usable(store)) context.skip();
    // The first uid on this device (its own time zone: no other test's) answers a question, which
    // posts the page's fingerprint; the second uid on the same device is refused at its answer.
    const first = await respondent("America/Sao_Paulo");
    await first.page.goto(service.startLink({ uid: "browser-device-first", languageId: 3 }));
    await answerGenderWithFingerprint(first.page);
    const firstId = new URL(first.page.url()).pathname.split("/").at(-1) ?? "";
    await expect
      .poll(async () => {
        const session = (await (await service.harness.request(`/v1/sessions/${firstId}`)).json()) as {
          questionsAsked: number;
        };
        return session.questionsAsked;
      })
      .toBe(1);
    const { page } = await respondent("America/Sao_Paulo");
    await page.goto(service.startLink({ uid: "browser-same-device", languageId: 3 }));
    await answerGenderWithFingerprint(page);
    await page.locator("h1", { hasText: "Thank you" }).waitFor();
    expect(await page.locator("main").textContent()).toContain("We cannot offer you more surveys at this time.");
    const id = new URL(page.url()).pathname.split("/").at(-1) ?? "";
    const session = (await (await service.harness.request(`/v1/sessions/${id}`)).json()) as { next: unknown };
    expect(session.next).toEqual({ kind: "done", reason: "excluded", gate: "duplicate-device" });
    await checkStep(page, "refused");
  }, 120_000);

  it("refuses a forged start link, and loads in frames of SYNC_EMBED_ORIGINS only", async (context) => {
    if (!usable(store)) context.skip();
    const { page } = await respondent("Asia/Tokyo");
    const forged = await page.goto(service.startLink({ uid: "browser-4", languageId: 3 }, "f".repeat(40)));
    expect(forged?.status()).toBe(403);
    expect(await page.locator("main").textContent()).toContain("This link is not valid.");
    await checkStep(page, "forged");

    await page.goto(`${embedder.origin}/`);
    const allowed = page.frameLocator("iframe");
    await expect.poll(async () => allowed.locator("h1").textContent()).toBe("A question");

    const refusals: string[] = [];
    page.on("console", (message) => {
      if (/frame-ancestors/.test(message.text())) refusals.push(message.text());
    });
    await page.goto(`${stranger.origin}/`);
    await expect.poll(() => refusals.length, { message: "the browser refused the frame" }).toBeGreaterThan(0);
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
    expect(await frame?.content()).not.toContain("A question");
  }, 120_000);
});
