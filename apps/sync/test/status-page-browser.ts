import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { ensureSystemTool } from "./system-tool.ts";

/** Headless Chromium from the system (`/usr/bin/chromium`), or undefined (the tests skip) outside CI. */
export const chromiumPath = ensureSystemTool("chromium", "chromium", "the status page tests in headless Chromium");

/** Screenshots land here; CI keeps the folder as an artefact. */
export const artifacts = fileURLToPath(new URL("../test-artifacts/", import.meta.url));

/** The two widths the page is built for: a laptop and a phone. */
export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;

/** `2026-11-24 20:58:05 UTC`: a time with its date and zone. */
export const DATED = /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/;

/** Starts headless Chromium with nothing that calls home. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** Saves a screenshot as `test-artifacts/<name>.png` and returns its path. */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(artifacts, { recursive: true });
  const path = `${artifacts}${name}.png`;
  await page.screenshot({ path, fullPage });
  return path;
}

/** Whether the element is visible and wholly inside the first screen (no scrolling needed). */
export async function inFirstScreen(page: Page, selector: string): Promise<boolean> {
  const box = await page.locator(selector).boundingBox();
  const viewport = page.viewportSize();
  const scrolled = await page.evaluate(() => window.scrollY);
  return (
    box !== null &&
    viewport !== null &&
    scrolled === 0 &&
    box.y >= 0 &&
    box.y + box.height <= viewport.height &&
    box.width > 0
  );
}

/** How far the page is wider than its viewport, in CSS pixels (0: no horizontal scroll). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(
    () => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - window.innerWidth,
  );
}

/** WCAG relative luminance of an `rgb(…)` colour. */
function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((part) => {
    const channel = Number(part) / 255;
    return channel <= 0.039_28 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
}

/** WCAG contrast ratio of two `rgb(…)` colours. */
export function contrast(foreground: string, background: string): number {
  const [light, dark] = [luminance(foreground), luminance(background)].sort((a, b) => b - a) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** Every visible text element's colour and the background it is drawn on. */
export function textColours(page: Page): Promise<{ text: string; color: string; background: string }[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll("h1, h2, h3, p, td, th, li, dt, dd, button, label, select")]
      .filter((node) => node.textContent.trim() !== "" && (node as HTMLElement).offsetParent !== null)
      .map((node) => {
        let background = "rgba(0, 0, 0, 0)";
        for (
          let current: Element | null = node;
          current && /rgba\(0, 0, 0, 0\)|transparent/.test(background);
          current = current.parentElement
        ) {
          background = getComputedStyle(current).backgroundColor;
        }
        return {
          text: node.textContent.slice(0, 40),
          color: getComputedStyle(node).color,
          background: /rgba\(0, 0, 0, 0\)/.test(background) ? "rgb(255, 255, 255)" : background,
        };
      }),
  );
}
