import type { Browser, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import { chromiumPath, DESKTOP, horizontalOverflow, launchChromium, PHONE, screenshot } from "./status-page-browser.ts";

/** Markup that runs script if any of it reaches the page as HTML. */
const hostile = (mark: number) => `<img src=x onerror="window.__xss=${mark}"><script>window.__xss=${mark}</script>`;

/** A window of the loop contract (docs: the lead's loop-status contract). */
const windowOf = (entries: number, completes: number, earnings: number, reversals = 0) => ({
  entries,
  pending: 0,
  completes,
  terminates: entries - completes,
  overquotas: 0,
  securityTerminates: 0,
  reversals,
  earnings,
  conversion: entries === 0 ? 0 : completes / entries,
  earningsPerEntry: entries === 0 ? 0 : earnings / entries,
});

/** The loop section as the contract has it, with hostile text where the loop passes text on. */
const loop = {
  matcher: { surveys: 5, sequence: 5 },
  account: {
    fetchedAt: "2026-11-24T20:00:00.000Z",
    entryLinksSigned: true,
    outcomesVerified: false,
    problem: `problem ${hostile(1)}`,
  },
  warnings: ["outcomes are accepted unsigned (OutgoingEncryption is off)", `warning ${hostile(2)}`],
  outcomes: { complete: 3, terminate: 1, overquota: 0, security: 0 },
  orphans: { tokens: 2 },
  refused: { total: 17, byReason: { bad_signature: 10, missing_token: 5, browser: 2 } },
  totals: { last24h: windowOf(10, 3, 4.5, 1), last7d: windowOf(40, 12, 18, 4), lifetime: windowOf(100, 30, 45.25, 5) },
  // Twelve surveys: the page shows the ten that earned most in the window.
  inventoryData: { groups: { surveys: 40, unavailable: 1 }, recontact: { studies: 5, unavailable: 0 } },
  surveys: Array.from({ length: 12 }, (_, index) => ({
    surveyId: 500 + index,
    lifetime: windowOf(20, index, index * 2),
    last24h: windowOf(1, 0, 0),
    last7d: windowOf(5, index % 4, (index % 4) * 2.25, index % 2),
  })),
};

describe.skipIf(!chromiumPath)("the status page with the loop's full report and hostile text in every field", () => {
  let harness: ServiceHarness;
  let browser: Browser;
  let page: Page;

  /** Answers `path` with the service's own body, changed by `change`. */
  const rewrite = (change: (body: Record<string, unknown>) => void) => async (route: Route) => {
    const response = await route.fetch();
    const body = (await response.json()) as Record<string, unknown>;
    change(body);
    await route.fulfill({ response, json: body });
  };

  beforeAll(async () => {
    harness = await startServiceHarness({ surveys: 5 });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: DESKTOP });
    await page.route(
      "**/readyz",
      rewrite(
        (body) => (body["warnings"] = [...((body["warnings"] as string[] | undefined) ?? []), `readyz ${hostile(3)}`]),
      ),
    );
    await page.route(
      "**/v1/collections",
      rewrite((body) => {
        for (const collection of body["collections"] as { name: string; body: { Languages?: { Name: string }[] } }[]) {
          for (const language of collection.body.Languages ?? []) language.Name = `${language.Name} ${hostile(4)}`;
        }
      }),
    );
    await page.route(
      "**/v1/sync/status",
      rewrite((body) => {
        const [real] = body["runs"] as { startedAt: string; counts: Record<string, number> }[];
        if (!real) throw new Error("the start-up cycle ran");
        // Twenty cycles: the first sync's 5,000 changes, then a handful each, one of them failed.
        const runs = Array.from({ length: 20 }, (_, index) => ({
          ...real,
          id: 20 - index,
          status: index === 2 ? "failed" : "succeeded",
          error: index === 2 ? `upstream said ${hostile(5)}` : null,
          durationMs: index === 19 ? 90_000 : 100 + index,
          counts: {
            ...real.counts,
            changes: index === 19 ? 5000 : index % 5,
            upstreamRequests: index === 19 ? 5000 : 3,
          },
        }));
        Object.assign(body, {
          loop,
          runs,
          // SYNC_CURRENCY=EUR: earnings carry the euro's symbol.
          currency: "EUR",
          quarantine: [
            {
              key: `key ${hostile(6)}`,
              surveyId: null,
              source: `source ${hostile(7)}`,
              timesSeen: 3,
              firstSeenAt: real.startedAt,
              lastSeenAt: real.startedAt,
              issues: [],
            },
          ],
        });
        (body["store"] as Record<string, number>)["quarantined"] = 1;
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await browser.close();
    await harness.close();
  });

  it("shows every hostile string as text and runs none of it", async () => {
    await page.goto(harness.service.url);
    await page.locator("#top-surveys tbody tr").first().waitFor();
    await page.locator("#languages tbody tr").first().waitFor();
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator("body img, body script, #status b").count(), "no element came from the data").toBe(0);
    const text = await page.locator("body").textContent();
    for (const mark of [1, 2, 3, 4, 5, 6, 7])
      expect(text, `hostile string ${mark} shown as text`).toContain(hostile(mark));
    expect(await page.locator("#warnings li").allTextContents()).toEqual(
      expect.arrayContaining([`readyz ${hostile(3)}`, `warning ${hostile(2)}`, `problem ${hostile(1)}`]),
    );
  });

  it("shows the money by window: entries, completes, conversion, earnings per entry, reversals, refused callbacks and orphans", async () => {
    const row = async (measure: string) =>
      (
        await page
          .locator("#money-windows tbody tr", { hasText: new RegExp(`^${measure}`) })
          .first()
          .locator("td")
          .allTextContents()
      ).slice(1);
    expect(await row("Entries")).toEqual(["10", "40", "100"]);
    expect(await row("Completes")).toEqual(["3", "12", "30"]);
    expect(await row("Conversion")).toEqual(["30 %", "30 %", "30 %"]);
    expect(await row("Earnings per entry")).toEqual(["€0.45", "€0.45", "€0.45"]);
    expect(
      (await page.locator("#money-windows tbody tr").allTextContents()).find(
        (line) => line.startsWith("Earnings") && !line.includes("per"),
      ),
    ).toBe("Earnings€4.50€18.00€45.25");
    expect(await row("Reversals")).toEqual(["1", "4", "5"]);
    expect(await page.locator("#fact-reversal-rate").textContent()).toBe("25 % of completes");
    expect(await page.locator("#fact-refused").textContent()).toBe(
      "17 (81 % of callbacks): bad signature 10, missing token 5, browser 2",
    );
    expect(await page.locator("#fact-orphans").textContent()).toBe("2");
    expect(await page.locator("#fact-signing").textContent()).toBe("Accepted unsignedentry links signed");
    expect(await page.locator("#routing-data").textContent()).toBe(
      "Respondent-aware routing data: survey groups for 40 surveys (1 unavailable), recontact lists for 5 studies (0 unavailable).",
    );
  });

  it("ranks the top ten surveys by earnings in the chosen window", async () => {
    const surveys = () => page.locator("#top-surveys tbody tr td:first-child").allTextContents();
    // Last 7 days (the default): earnings (index % 4) × 2.25, ties by entries then id.
    expect(await surveys()).toEqual([
      "Survey 503",
      "Survey 507",
      "Survey 511",
      "Survey 502",
      "Survey 506",
      "Survey 510",
      "Survey 501",
      "Survey 505",
      "Survey 509",
      "Survey 500",
    ]);
    expect(await page.locator("#top-surveys-note").textContent()).toBe(
      "12 surveys with entries; the 10 that earned most are shown.",
    );
    await page.getByLabel("Window").selectOption("lifetime");
    expect((await surveys())[0]).toBe("Survey 511");
    expect(await page.locator("#top-surveys tbody tr").first().locator("td").allTextContents()).toEqual([
      "Survey 511",
      "20",
      "11",
      "55 %",
      "€22.00",
      "€1.10",
      "0",
    ]);
    await page.getByLabel("Window").selectOption("last7d");
  });

  it("cuts the first sync's bar and labels it, so the later cycles stay readable", async () => {
    const changes = page.locator("#cycles-charts svg").nth(2);
    expect(await changes.locator("text").first().textContent()).toBe("Changes (axis to 4; 1 above, cut and labelled)");
    expect(await changes.locator("text.outlier").textContent()).toBe("5,000");
    // The ordinary cycles use the height of the chart: the tallest is as tall as the cut bar (the oldest, first).
    const heights = await changes
      .locator("rect[fill]")
      .evaluateAll((bars) =>
        bars.filter((bar) => bar.getAttribute("fill") !== "#ffffff").map((bar) => Number(bar.getAttribute("height"))),
      );
    expect(heights).toHaveLength(20);
    expect(Math.max(...heights.slice(1))).toBe(heights[0]);
    expect(await page.locator("#cycles-charts svg").first().locator("text").first().textContent()).toMatch(
      /1 above, cut and labelled/,
    );
    await screenshot(page, "status-full-loop-report-1280");
    await page.setViewportSize(PHONE);
    await expect
      .poll(() => horizontalOverflow(page), { message: "no horizontal scroll at 390 px, hostile text included" })
      .toBeLessThanOrEqual(0);
    await screenshot(page, "status-full-loop-report-390");
    await page.setViewportSize(DESKTOP);
  });
});
