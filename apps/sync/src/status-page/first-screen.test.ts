import type { SyncStatus } from "@sds/sync-client";
import { describe, expect, it } from "vitest";
import { renderFirstScreen } from "./first-screen.ts";
import { readPageAssets } from "./page-assets.ts";

const { html } = readPageAssets();
const now = new Date("2026-11-28T08:00:00Z");

describe("the status page's first screen, rendered on the server", () => {
  it("fills the health band from readiness, as text: markup in a warning stays text", () => {
    const page = renderFirstScreen(
      html,
      {
        readiness: {
          ready: true,
          lastSuccessAt: "2026-11-28T07:59:00Z",
          staleAfterSeconds: 180,
          closuresHeld: 0,
          warnings: ['<img src=x onerror="alert(1)"> & more'],
        },
      },
      now,
    );
    expect(page).toContain('<header id="health" class="state-warn">');
    expect(page).toContain('<p id="health-headline" aria-live="polite">Ready, with warnings</p>');
    expect(page).toContain("<li>&#60;img src=x onerror=&#34;alert(1)&#34;&#62; &#38; more</li>");
    expect(page).not.toContain("<img");
    expect(page).toContain("Last successful sync 2026-11-28 07:59:00 UTC (60 s ago; not ready once older than 3 min).");
    expect(page).toContain(
      '<dd id="fact-last-success">60 s ago<span class="detail">2026-11-28 07:59:00 UTC</span></dd>',
    );
    // Behind a token the rest stays for the script to fill.
    expect(page).toContain('<dd id="fact-earnings">—</dd>');
    expect(page).toContain("<title>Ready, with warnings · sds-sync</title>");
  });

  it("says not ready, and why, in red", () => {
    const page = renderFirstScreen(html, { readiness: { ready: false, reason: "no successful sync cycle yet" } }, now);
    expect(page).toContain('<header id="health" class="state-down">');
    expect(page).toContain("Not ready: no successful sync cycle yet");
    expect(page).toContain('<ul id="warnings" aria-label="Warnings" hidden></ul>');
    expect(page).toContain('<dd id="fact-last-success" class="bad">never</dd>');
  });

  it("adds the facts and the week's earnings, in the configured currency, when the status is given", () => {
    const page = renderFirstScreen(
      html,
      {
        readiness: { ready: true, lastSuccessAt: "2026-11-28T07:59:00Z", closuresHeld: 0 },
        status: {
          replica: {
            leader: false,
            leaderId: "replica-a",
            leaderAddress: "http://10.0.0.5:8787",
            consecutiveFailures: 2,
          },
          currency: "EUR",
          store: { quarantined: 0 },
          loop: { totals: { last7d: { earnings: 1234.5, entries: 40, completes: 1 } } },
          // Only the parts the first screen reads: the renderer tolerates a status missing the rest.
        } as unknown as SyncStatus,
      },
      now,
    );
    expect(page).toContain("Ready, but the last 2 cycles failed");
    expect(page).toContain(
      '<dd id="fact-role">Follower<span class="detail">leader: replica-a at http://10.0.0.5:8787</span></dd>',
    );
    expect(page).toContain('<dd id="fact-earnings">€1,234.50<span class="detail">40 entries, 1 complete</span></dd>');
    expect(page).toContain('<dd id="fact-failures" class="bad">2</dd>');
  });
});
