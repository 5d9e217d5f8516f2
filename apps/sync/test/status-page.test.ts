import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import { ensureSystemTool } from "./system-tool.ts";

const chromiumPath = ensureSystemTool("chromium", "chromium", "the status page tests in headless Chromium");
const artifacts = fileURLToPath(new URL("../test-artifacts/", import.meta.url));
const token = "status-page-token-0123456789";

/** WCAG relative luminance of an `rgb(…)` colour. */
function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((part) => {
    const channel = Number(part) / 255;
    return channel <= 0.039_28 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
}
const contrast = (foreground: string, background: string) => {
  const [light, dark] = [luminance(foreground), luminance(background)].sort((a, b) => b - a) as [number, number];
  return (light + 0.05) / (dark + 0.05);
};

describe.skipIf(!chromiumPath)("the status page at GET / in headless Chromium", () => {
  let harness: ServiceHarness;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    harness = await startServiceHarness({ surveys: 40, config: { apiToken: token } });
    browser = await chromium.launch({
      executablePath: chromiumPath ?? "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
    page = await browser.newPage({ viewport: { width: 1000, height: 1400 } });
  }, 60_000);
  afterAll(async () => {
    await browser.close();
    await harness.close();
  });

  it("serves the page, its script and style from the service itself, nothing inline, no other origin", async () => {
    const response = await harness.request("/");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("content-security-policy")).toMatch(/default-src 'none'; script-src 'self'/);
    const html = await response.text();
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of ["/status.js", "/status.css"]) expect((await harness.request(asset)).status, asset).toBe(200);
  });

  it("asks for the token with a labelled field reachable by keyboard, and refuses a wrong one", async () => {
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    await page.goto(harness.service.url);
    const field = page.getByLabel("API token");
    await field.waitFor();
    expect(requests.every((url) => url.startsWith(harness.service.url))).toBe(true);
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
  });

  it("shows counts by language, cycles, closures and quarantine, and the feed moving, with the token kept for the tab only", async () => {
    await page.getByLabel("API token").fill(token);
    await page.getByRole("button", { name: "Show status" }).click();
    await page.locator("#languages tbody tr").first().waitFor();

    const live = harness.api.listSurveys(1001);
    const perLanguage = new Map<number, number>();
    for (const survey of live) perLanguage.set(survey.LanguageId, (perLanguage.get(survey.LanguageId) ?? 0) + 1);
    const rows = await page.locator("#languages tbody tr").evaluateAll((elements) => elements.map((row) => [...row.children].map((cell) => cell.textContent)));
    expect(rows).toHaveLength(perLanguage.size);
    for (const [name, liveCount] of rows) expect(Number(liveCount), name).toBe(perLanguage.get(Number(/(\d+)\)?$/.exec(name ?? "")?.[1])));
    expect(await page.locator("#summary").textContent()).toContain(`${live.length} live and 0 closed`);
    expect(await page.locator("#cycles-charts svg").count()).toBe(3);
    expect(await page.locator("#cycles-charts svg rect").count()).toBeGreaterThanOrEqual(3);
    expect(await page.locator("#closures").textContent()).toBe("None held.");
    expect(await page.locator("#quarantine-summary").textContent()).toBe("Nothing in quarantine.");
    expect(await page.evaluate(() => sessionStorage.getItem("sds-sync-token"))).toBe(token);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);

    // The feed moves: a survey closes upstream, a cycle runs, the page shows the change.
    const closed = live[0]?.SurveyId ?? 0;
    harness.api.closeSurvey(closed);
    expect((await harness.request("/v1/sync/run", { method: "POST", headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    await expect.poll(() => page.locator("#feed li").first().textContent(), { timeout: 15_000 }).toContain(`closed survey ${closed}`);
    await expect.poll(() => page.locator("#summary").textContent(), { timeout: 15_000 }).toContain(`${live.length - 1} live and 1 closed`);

    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: `${artifacts}status-page.png`, fullPage: true });
  });

  it("keeps text contrast at WCAG AA (4.5:1) and every form field labelled", async () => {
    const samples = await page.evaluate(() =>
      [...document.querySelectorAll("h1, h2, p, td, th, li, button, label")]
        .filter((node) => node.textContent.trim() !== "" && (node as HTMLElement).offsetParent !== null)
        .map((node) => {
          let background = "rgba(0, 0, 0, 0)";
          for (let current: Element | null = node; current && /rgba\(0, 0, 0, 0\)|transparent/.test(background); current = current.parentElement) {
            background = getComputedStyle(current).backgroundColor;
          }
          return { text: node.textContent.slice(0, 40), color: getComputedStyle(node).color, background: /rgba\(0, 0, 0, 0\)/.test(background) ? "rgb(255, 255, 255)" : background };
        }),
    );
    expect(samples.length).toBeGreaterThan(20);
    for (const sample of samples) expect(contrast(sample.color, sample.background), `${sample.text}: ${sample.color} on ${sample.background}`).toBeGreaterThanOrEqual(4.5);
    const unlabelled = await page.evaluate(() => [...document.querySelectorAll("input")].filter((input) => input.labels?.length === 0).map((input) => input.id));
    expect(unlabelled).toEqual([]);
    expect(await page.locator("svg[role=img] > title").count()).toBe(3);
  });
});
