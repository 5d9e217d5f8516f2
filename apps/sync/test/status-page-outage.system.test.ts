import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import {
  chromiumPath,
  DATED,
  DESKTOP,
  horizontalOverflow,
  inFirstScreen,
  launchChromium,
  PHONE,
  screenshot,
} from "./status-page-browser.ts";

describe.skipIf(!chromiumPath)("the status page during an upstream outage", () => {
  let harness: ServiceHarness;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    // No API token (the page shows everything without asking) and a short interval, so that
    // readiness goes stale (three intervals without a success) within a second of the outage.
    harness = await startServiceHarness({ surveys: 5, config: { intervalSeconds: 0.2 } });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: DESKTOP });
  }, 60_000);
  afterAll(async () => {
    await browser.close();
    await harness.close();
  });

  it("says in red, in the first screen, that the service is not ready and why, with the failures counted", async () => {
    await page.goto(harness.service.url);
    await expect.poll(() => page.locator("#health-headline").textContent()).toMatch(/^Ready/);
    expect(await page.locator("#token-form").isVisible(), "no token is asked for when the API needs none").toBe(false);

    harness.api.faults.add({ kind: "status", status: 503, operation: "listSurveys" });
    await waitFor(async () => (await harness.request("/readyz")).status === 503, 10_000);
    await expect.poll(() => page.locator("#health").getAttribute("class"), { timeout: 15_000 }).toBe("state-down");
    expect(await page.locator("#health-headline").textContent()).toBe(
      "Not ready: stale: the last successful sync cycle is too old",
    );
    expect(await inFirstScreen(page, "#health"), "the whole health band is in the first screen").toBe(true);
    expect(await page.title(), "and the tab's title").toBe("NOT READY · sds-sync");
    expect(await page.locator("#health .band").evaluate((band) => getComputedStyle(band).backgroundColor)).toBe(
      "rgb(164, 0, 0)",
    );
    expect(await page.locator("#health-detail").textContent()).toMatch(
      new RegExp(`Last successful sync ${DATED.source}.*Last failure ${DATED.source}: `),
    );
    await expect
      .poll(async () => Number(await page.locator("#fact-failures").textContent()), { timeout: 10_000 })
      .toBeGreaterThan(0);
    expect(await page.locator("#fact-failures").getAttribute("class")).toBe("bad");
    expect(await inFirstScreen(page, "#fact-failures")).toBe(true);
    expect(await page.locator("#cycles tbody td.failed").count()).toBeGreaterThan(0);
    await screenshot(page, "status-outage-1280", false);

    await page.setViewportSize(PHONE);
    await expect.poll(() => horizontalOverflow(page)).toBeLessThanOrEqual(0);
    expect(await inFirstScreen(page, "#health-headline"), "on a phone too").toBe(true);
    await screenshot(page, "status-outage-390", false);
    await screenshot(page, "status-outage-390-full");
    await page.setViewportSize(DESKTOP);
  });

  it("turns back to ready once the upstream answers again", async () => {
    harness.api.faults.clear();
    await waitFor(async () => (await harness.request("/readyz")).status === 200, 15_000);
    await expect.poll(() => page.locator("#health").getAttribute("class"), { timeout: 15_000 }).not.toBe("state-down");
    expect(await page.locator("#health-headline").textContent()).toMatch(/^Ready/);
  });
});
