import { DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID, createFakeSupplierApi } from "@sds/testing";
import type { Browser, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import { chromiumPath, DATED, DESKTOP, launchChromium, PHONE, screenshot } from "./status-page-browser.ts";

/*
 * What a newcomer and an operator see first on the status page, in headless Chromium (system
 * tier): the first screen without its script, money with its currency, what the outcome count
 * counts, empty charts, the phone layout and a follower naming its leader.
 */

const token = "status-page-first-hour-0123456789";
const pgAvailable = await postgresAvailable();

describe.skipIf(!chromiumPath)("the status page's first screen and figures", () => {
  let open: ServiceHarness;
  let guarded: ServiceHarness;
  let browser: Browser;

  beforeAll(async () => {
    [open, guarded] = await Promise.all([
      startServiceHarness({ surveys: 12 }),
      startServiceHarness({ surveys: 12, config: { apiToken: token } }),
    ]);
    browser = await launchChromium();
    // One entry with its outcome, so the open service has earnings to show.
    const survey = open.api.listSurveys(DEFAULT_SUPPLIER_ID)[1];
    if (!survey) throw new Error("the fake has live surveys");
    const issued = await open.request("/v1/entry-links", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ surveyId: survey.SurveyId, token: "first-hour-1" }),
    });
    expect(issued.status).toBe(201);
    expect((await open.request("/v1/outcomes/complete?vq_token=first-hour-1")).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await browser.close();
    await Promise.all([open.close(), guarded.close()]);
  });

  async function pageWithoutScript(url: string): Promise<Page> {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(url);
    return page;
  }

  it("says how the service is before its script runs: the health band from readiness, behind a token too", async () => {
    const page = await pageWithoutScript(guarded.service.url);
    try {
      expect(await page.locator("#health-headline").textContent()).toBe("Ready, with warnings");
      expect(await page.locator("#health").getAttribute("class")).toBe("state-warn");
      expect(await page.locator("#warnings").textContent()).toMatch(/accepted unsigned/i);
      expect(await page.locator("#warnings").isVisible()).toBe(true);
      expect(await page.locator("#fact-last-success").textContent()).toMatch(DATED);
      expect(await page.locator("#health-detail").textContent()).toMatch(/Sign in below/);
      // Behind a token, nothing that needs it is rendered.
      expect(await page.locator("#fact-earnings").textContent()).toBe("—");
      expect(await page.locator("#fact-role").textContent()).toBe("—");
      expect(await page.title()).toBe("Ready, with warnings · sds-sync");
    } finally {
      await page.context().close();
    }
  });

  it("renders the headline figures too when the API is open, earnings with the currency's symbol", async () => {
    const page = await pageWithoutScript(open.service.url);
    try {
      expect(await page.locator("#health-headline").textContent()).toBe("Ready, with warnings");
      expect(await page.locator("#fact-role").textContent()).toBe("Leader");
      expect(await page.locator("#fact-failures").textContent()).toBe("0");
      expect(await page.locator("#fact-earnings").textContent()).toMatch(/^\$\d+\.\d{2}1 entry, 1 complete$/);
      expect(await page.locator("#fact-signing").textContent()).toBe("Accepted unsignedentry links signed");
    } finally {
      await page.context().close();
    }
  });

  it("with its script: money in USD by default, outcome transitions said as such, the same first screen", async () => {
    const page = await browser.newPage({ viewport: DESKTOP });
    try {
      await page.goto(open.service.url);
      await page.locator("#money-windows tbody tr").first().waitFor();
      const earnings = await page
        .locator("#money-windows tbody tr", { hasText: /^Earnings(?! per)/ })
        .locator("td")
        .last()
        .textContent();
      expect(earnings).toMatch(/^\$\d+\.\d{2}$/);
      expect(await page.locator("#money-note").textContent()).toContain("money in USD");
      expect(await page.locator("#fact-earnings").textContent()).toMatch(/^\$\d+\.\d{2}1 entry, 1 complete$/);
      const outcomes = page.locator("#fact-outcomes").locator("xpath=..");
      expect(await outcomes.locator("dt").textContent()).toBe("Outcome transitions recorded");
      expect(await page.locator("#fact-outcomes").textContent()).toMatch(
        /^complete 1, terminate 0.*every outcome an entry reached, each later change counted again; 1 entry in all$/,
      );
      // The screenshot the README shows (docs/status-page.png is a copy of it).
      await screenshot(page, "status-first-hour-1280", false);
    } finally {
      await page.close();
    }
  });

  it("says what an empty chart would show", async () => {
    const page = await browser.newPage({ viewport: DESKTOP });
    try {
      await page.route("**/v1/sync/status", async (route: Route) => {
        const response = await route.fetch();
        const body = (await response.json()) as Record<string, unknown>;
        await route.fulfill({ response, json: { ...body, runs: [] } });
      });
      await page.goto(open.service.url);
      await expect
        .poll(() => page.locator("#cycles-charts").textContent())
        .toMatch(
          /^No cycle recorded yet: once one has run, charts here show each cycle's duration, upstream requests and changes/,
        );
      expect(await page.locator("#cycles-charts svg").count()).toBe(0);
    } finally {
      await page.close();
    }
  });

  it("at 390 px keeps the 'Fetched' label whole and both dates under every chart", async () => {
    const page = await browser.newPage({ viewport: PHONE });
    try {
      await open.request("/v1/sync/run", { method: "POST" });
      await page.goto(open.service.url);
      await page.locator("#collections tbody tr").first().waitFor();
      const label = await page
        .locator("#collections tbody td")
        .nth(1)
        .evaluate((cell) => {
          const before = getComputedStyle(cell, "::before");
          return {
            text: before.content,
            height: parseFloat(before.height),
            lineHeight: parseFloat(getComputedStyle(cell).lineHeight),
          };
        });
      expect(label.text).toBe('"Fetched"');
      expect(label.height, "one line, not 'Fetche / d'").toBeLessThan(label.lineHeight * 1.5);
      const charts = page.locator("#cycles-charts svg");
      await expect.poll(() => charts.count()).toBe(3);
      for (const index of [0, 1, 2]) {
        const dates = await charts
          .nth(index)
          .locator("text")
          .evaluateAll((texts) =>
            texts.map((text) => text.textContent).filter((text) => /^\d{2}-\d{2} \d{2}:\d{2} UTC$/.test(text)),
          );
        expect(dates, `chart ${index}: the first and the last cycle's dates`).toHaveLength(2);
      }
      const overlap = await charts.first().evaluate((chart) => {
        const [from, to] = [...chart.querySelectorAll("text")].filter((text) => / UTC$/.test(text.textContent));
        if (!from || !to) return Number.NaN;
        return from.getBoundingClientRect().right - to.getBoundingClientRect().left;
      });
      expect(overlap, "the two dates do not overlap").toBeLessThan(0);
      await screenshot(page, "status-first-hour-390");
    } finally {
      await page.close();
    }
  });
});

describe.skipIf(!chromiumPath || !pgAvailable)("the status page of a follower", () => {
  const schema = freshSchemaName("sds_sync_page_follower");
  const api = createFakeSupplierApi({
    suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 5 }],
  });
  let leader: ServiceHarness;
  let follower: ServiceHarness;
  let browser: Browser;

  beforeAll(async () => {
    const database = { kind: "postgres", connectionString: testDatabaseUrl, schema } as const;
    leader = await startServiceHarness({ api, database, replicaId: "page-leader" });
    follower = await startServiceHarness({ api, database, replicaId: "page-follower", followerPollMs: 100 });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser.close();
    await follower.close();
    await leader.close();
    await api.close();
    await dropSchema(schema);
  });

  it("says which replica leads and where", async () => {
    const port = new URL(leader.service.url).port;
    await waitFor(async () => {
      const status = (await (await follower.request("/v1/sync/status")).json()) as {
        replica: { leaderAddress?: string };
      };
      return status.replica.leaderAddress !== undefined;
    });
    const page = await browser.newPage({ viewport: DESKTOP });
    try {
      await page.goto(follower.service.url);
      await expect
        .poll(() => page.locator("#fact-role").textContent())
        .toBe(`Followerleader: page-leader at http://127.0.0.1:${port}`);
    } finally {
      await page.close();
    }
  });
});
