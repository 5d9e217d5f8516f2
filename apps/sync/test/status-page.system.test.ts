import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import {
  chromiumPath,
  contrast,
  DATED,
  DESKTOP,
  horizontalOverflow,
  inFirstScreen,
  launchChromium,
  PHONE,
  screenshot,
  textColours,
} from "./status-page-browser.ts";

const token = "status-page-token-0123456789";
const authorized = { authorization: `Bearer ${token}`, "content-type": "application/json" };

describe.skipIf(!chromiumPath)("the status page at GET / in headless Chromium", () => {
  let harness: ServiceHarness;
  let browser: Browser;
  let page: Page;
  const shots: string[] = [];

  /** Screenshots at 1280 px, then at 390 px (where nothing may scroll sideways), then back. */
  async function atBothWidths(name: string): Promise<void> {
    shots.push(await screenshot(page, `${name}-1280`));
    await page.setViewportSize(PHONE);
    await expect
      .poll(() => horizontalOverflow(page), { message: `${name}: no horizontal scroll at 390 px` })
      .toBeLessThanOrEqual(0);
    shots.push(await screenshot(page, `${name}-390`));
    await page.setViewportSize(DESKTOP);
  }

  beforeAll(async () => {
    harness = await startServiceHarness({ surveys: 40, config: { apiToken: token } });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: DESKTOP });
  }, 60_000);
  afterAll(async () => {
    await browser.close();
    await harness.close();
    console.info(`status page screenshots:\n${shots.join("\n")}`);
  });

  it("serves the page, its module script and style from the service itself, nothing inline, no other origin", async () => {
    const response = await harness.request("/");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("content-security-policy")).toMatch(/default-src 'none'; script-src 'self'/);
    const html = await response.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).toContain('<script type="module" src="/status.js"></script>');
    for (const asset of ["/status.js", "/status.css"]) expect((await harness.request(asset)).status, asset).toBe(200);
    // The script served is the checked file itself, not a copy kept in a string.
    const script = await (await harness.request("/status.js")).text();
    expect(script).toBe(readFileSync(new URL("../src/status-page/browser/status.js", import.meta.url), "utf8"));
    expect(script.startsWith("// @ts-check")).toBe(true);
  });

  it("shows readiness before sign-in, asks for the token with a labelled field reachable by keyboard, and refuses a wrong one", async () => {
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    await page.goto(harness.service.url);
    const field = page.getByLabel("API token");
    await field.waitFor();
    expect(requests.every((url) => url.startsWith(harness.service.url))).toBe(true);
    await expect.poll(() => page.locator("#health-headline").textContent()).toMatch(/^Ready/);
    expect(await page.evaluate(() => document.activeElement?.id), "the field has the focus on arrival").toBe("token");
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id), "and is reached again by keyboard").toBe("token");
    await page.keyboard.type("wrong-token-but-long-enough");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Show status");
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle);
    expect(outline, "keyboard focus is visible").toBe("solid");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#token-error").textContent()).toBe("That token was refused.");
    expect(await page.locator("#token-form").isVisible()).toBe(true);
  });

  it("refuses a token a header cannot carry with a message, and is never stuck: the form stays usable, also after a reload", async () => {
    // "é" is Latin-1 (a browser sends it, the service cannot take it); "€" is not (fetch throws).
    for (const unusable of [
      "tokén-with-an-accent-0123456789",
      "token-with-a-euro-€-0123456789",
      "token with spaces 0123456789",
    ]) {
      await page.getByLabel("API token").fill(unusable);
      await page.getByRole("button", { name: "Show status" }).click();
      await expect
        .poll(() => page.locator("#token-error").textContent(), { message: unusable })
        .toMatch(/character an HTTP header cannot carry/);
      expect(
        await page.evaluate(() => sessionStorage.getItem("sds-sync-token")),
        "the bad token is not kept",
      ).toBeNull();
      expect(await page.locator("#token-form").isVisible()).toBe(true);
      await page.locator("#token-error").evaluate((node) => {
        node.textContent = "";
      });
    }

    // A tab that already holds such a token (kept by an older page, or set by hand) used to show
    // neither the form nor the forget button until it was closed.
    await page.evaluate(() => {
      sessionStorage.setItem("sds-sync-token", "tokén-with-an-accent-0123456789");
    });
    await page.reload();
    await page.getByLabel("API token").waitFor();
    await expect
      .poll(() => page.locator("#token-error").textContent())
      .toMatch(/character an HTTP header cannot carry/);
    expect(await page.locator("#token-form").isVisible()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem("sds-sync-token"))).toBeNull();
  });

  it("puts health first (ready, last success, failures, role, warnings such as unsigned outcomes), then inventory by language, dated cycles and the moving feed", async () => {
    await page.getByLabel("API token").fill(token);
    await page.getByRole("button", { name: "Show status" }).click();
    await page.locator("#languages tbody tr").first().waitFor();

    // The default fake's account does not sign outcome callbacks: the first screen says so.
    await expect.poll(() => page.locator("#health").getAttribute("class")).toBe("state-warn");
    expect(await page.locator("#health-headline").textContent()).toBe("Ready, with warnings");
    expect(await page.locator("#warnings").textContent()).toMatch(/accepted unsigned/i);
    for (const selector of ["#health-headline", "#warnings", "#fact-last-success", "#fact-failures", "#fact-role"])
      expect(await inFirstScreen(page, selector), selector).toBe(true);
    expect(await page.locator("#fact-last-success").textContent()).toMatch(DATED);
    expect(await page.locator("#fact-failures").textContent()).toBe("0");
    expect(await page.locator("#fact-role").textContent()).toBe("Leader");
    expect(await page.locator("#fact-signing").textContent()).toBe("Accepted unsignedentry links signed");
    expect(await page.locator("#health-detail").textContent()).toMatch(
      new RegExp(`Last successful sync ${DATED.source}`),
    );
    // Then the money: no entry link was issued yet.
    expect(
      await page
        .locator("#money-windows tbody tr", { hasText: /^Entries/ })
        .locator("td")
        .last()
        .textContent(),
      "lifetime entries",
    ).toBe("0");

    const live = harness.api.listSurveys(1001);
    const perLanguage = new Map<number, number>();
    for (const survey of live) perLanguage.set(survey.LanguageId, (perLanguage.get(survey.LanguageId) ?? 0) + 1);
    const rows = await page
      .locator("#languages tbody tr")
      .evaluateAll((elements) => elements.map((row) => [...row.children].map((cell) => cell.textContent)));
    expect(rows).toHaveLength(perLanguage.size);
    for (const [name, liveCount] of rows)
      expect(Number(liveCount), name).toBe(perLanguage.get(Number(/(\d+)\)?$/.exec(name ?? "")?.[1])));
    expect(await page.locator("#inventory-summary").textContent()).toContain(`${live.length} live and 0 closed`);
    expect(await page.locator("#cycles-charts svg").count()).toBe(3);
    expect(await page.locator("#cycles tbody td").first().textContent()).toMatch(DATED);
    expect(await page.locator("#collections tbody td").nth(1).textContent()).toMatch(DATED);
    expect(await page.locator("#closures").textContent()).toBe("None held.");
    expect(await page.locator("#quarantine-summary").textContent()).toBe("Nothing in quarantine.");
    expect(await page.locator("#forget").isVisible()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem("sds-sync-token"))).toBe(token);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);

    // The feed moves: a survey closes upstream, a cycle runs, the page shows the change.
    const closed = live[0]?.SurveyId ?? 0;
    harness.api.closeSurvey(closed);
    expect((await harness.request("/v1/sync/run", { method: "POST", headers: authorized })).status).toBe(200);
    await expect
      .poll(() => page.locator("#feed li").first().textContent(), { timeout: 15_000 })
      .toContain(`closed survey ${closed}`);
    expect(await page.locator("#feed li").first().textContent()).toMatch(DATED);
    await expect
      .poll(() => page.locator("#inventory-summary").textContent(), { timeout: 15_000 })
      .toContain(`${live.length - 1} live and 1 closed`);
    await atBothWidths("status-healthy");
  });

  it("shows the respondent loop's money once an entry link was issued and its outcome recorded", async () => {
    const survey = harness.api.listSurveys(1001)[1];
    if (!survey) throw new Error("the fake has live surveys");
    const issued = await harness.request("/v1/entry-links", {
      method: "POST",
      headers: authorized,
      body: JSON.stringify({ surveyId: survey.SurveyId, token: "page-entry-1" }),
    });
    expect(issued.status).toBe(201);
    // The fake's account signs no outcome callbacks, so the service records an unsigned one.
    expect((await harness.request("/v1/outcomes/complete?vq_token=page-entry-1")).status).toBe(200);

    expect(await page.locator("#money-heading").textContent()).toBe("Earnings");
    await page.getByLabel("Window").selectOption("lifetime");
    const row = page.locator("#top-surveys tbody tr", { hasText: `Survey ${survey.SurveyId}` });
    await row.waitFor({ timeout: 15_000 });
    const cells = await row.locator("td").allTextContents();
    expect(cells.slice(0, 3)).toEqual([`Survey ${survey.SurveyId}`, "1", "1"]);
    expect(cells[3]).toBe("100 %");
    expect(
      await page.locator("#money-windows tbody tr", { hasText: "Entries" }).locator("td").last().textContent(),
      "lifetime entries",
    ).toBe("1");
    expect(await page.locator("#fact-outcomes").textContent()).toContain("complete 1");
    // The money comes right after the health: above the inventory.
    const [money, inventory] = await Promise.all([
      page.locator("#money").boundingBox(),
      page.locator("#inventory").boundingBox(),
    ]);
    expect((money?.y ?? Infinity) < (inventory?.y ?? 0)).toBe(true);
    await atBothWidths("status-loop");
  });

  it("lists the quality gate's refusals by code", async () => {
    const refused = await harness.request("/v1/sessions", {
      method: "POST",
      headers: authorized,
      body: JSON.stringify({
        uid: "page-bot",
        languageId: 3,
        userAgent: "Googlebot/2.1 (+http://www.google.com/bot.html)",
      }),
    });
    expect(refused.status).toBe(403);
    expect(await page.locator("#gate-heading").textContent()).toBe("Quality gate");
    await page.locator("#gate-refusals", { hasText: "Respondents refused: 1 (bot 1)." }).waitFor({ timeout: 15_000 });
  });

  it("keeps text contrast at WCAG AA (4.5:1), every form field labelled, and every chart titled", async () => {
    const samples = await textColours(page);
    expect(samples.length).toBeGreaterThan(40);
    for (const sample of samples)
      expect(
        contrast(sample.color, sample.background),
        `${sample.text}: ${sample.color} on ${sample.background}`,
      ).toBeGreaterThanOrEqual(4.5);
    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll("input, select")]
        .filter((input) => (input as HTMLInputElement).labels?.length === 0)
        .map((input) => input.id),
    );
    expect(unlabelled).toEqual([]);
    expect(await page.locator("svg[role=img] > title").count()).toBe(3);
  });

  it("forgets the token on request", async () => {
    await page.getByRole("button", { name: "Forget the token" }).click();
    await page.getByLabel("API token").waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem("sds-sync-token"))).toBeNull();
    expect(await page.locator("#status").isVisible()).toBe(false);
  });
});
