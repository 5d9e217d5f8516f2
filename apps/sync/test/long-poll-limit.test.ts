import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import { waitFor } from "./harness.ts";

/**
 * SYNC_MAX_LONG_POLLS over real HTTP: each feed (changes, outcomes) lets that many readers wait at
 * once; one more is answered 503 `too_many_long_polls` with Retry-After at once instead of
 * holding one more connection, and a reader that hangs up gives its place back.
 */
describe("the long-poll limit (SYNC_MAX_LONG_POLLS)", () => {
  let harness: ServiceHarness;
  beforeAll(async () => {
    harness = await startServiceHarness({ surveys: 3, config: { maxLongPolls: 2 } });
  });
  afterAll(async () => {
    await harness.close();
  });

  /** Starts a long-poll on `feed` after its latest sequence; resolves with its status once it answers. */
  async function waitOn(feed: "changes" | "outcomes", seconds: number, signal?: AbortSignal): Promise<number> {
    const { next } = (await (await harness.request(`/v1/${feed}?limit=1000`)).json()) as { next: number };
    const response = await harness.request(
      `/v1/${feed}?after=${next}&wait=${seconds}`,
      signal === undefined ? {} : { signal },
    );
    await response.body?.cancel();
    return response.status;
  }

  /** The `sds_sync_long_polls_waiting` and `…_refused_total` series of `feed`, from /metrics. */
  async function gauges(feed: string): Promise<{ waiting: number; refused: number }> {
    const text = await (await harness.request("/metrics")).text();
    const read = (name: string) =>
      Number(new RegExp(`^${name}\\{feed="${feed}"\\} (\\d+)$`, "m").exec(text)?.[1] ?? Number.NaN);
    return { waiting: read("sds_sync_long_polls_waiting"), refused: read("sds_sync_long_polls_refused_total") };
  }

  for (const feed of ["changes", "outcomes"] as const) {
    it(`turns away a third reader of /v1/${feed} while two wait, and lets one in once a waiting reader hangs up`, async () => {
      const leaving = new AbortController();
      const staying = new AbortController();
      const first = waitOn(feed, 30, leaving.signal).catch((error: unknown) => error);
      const second = waitOn(feed, 30, staying.signal).catch((error: unknown) => error);
      await waitFor(async () => (await gauges(feed)).waiting === 2);
      const { refused: refusedBefore } = await gauges(feed);

      const { next } = (await (await harness.request(`/v1/${feed}?limit=1000`)).json()) as { next: number };
      const started = Date.now();
      const refused = await harness.request(`/v1/${feed}?after=${next}&wait=30`);
      expect(refused.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(refused.headers.get("retry-after")).toBe("2");
      expect(await refused.json()).toMatchObject({ error: { code: "too_many_long_polls" } });
      expect(await gauges(feed)).toEqual({ waiting: 2, refused: refusedBefore + 1 });
      // A read without wait is never refused.
      expect((await harness.request(`/v1/${feed}?after=${next}`)).status).toBe(200);

      leaving.abort();
      expect(await first).toBeInstanceOf(Error);
      // The place is given back once the service has seen the hang-up: a new reader waits its second and gets 200.
      await waitFor(async () => (await gauges(feed)).waiting === 1);
      expect(await waitOn(feed, 1)).toBe(200);
      staying.abort();
      expect(await second).toBeInstanceOf(Error);
      await waitFor(async () => (await gauges(feed)).waiting === 0);
    });
  }

  it("keeps the two feeds' places apart: readers waiting on changes do not take the outcomes' places", async () => {
    const stop = new AbortController();
    const waiting = [waitOn("changes", 30, stop.signal), waitOn("changes", 30, stop.signal)].map((status) =>
      status.catch(() => 0),
    );
    await waitFor(async () => (await gauges("changes")).waiting === 2);
    expect(await waitOn("outcomes", 1)).toBe(200);
    stop.abort();
    await Promise.all(waiting);
  });
});
