import { afterEach, describe, expect, it } from "vitest";
import type { FetchFunction } from "../src/upstream/counting-fetch.ts";
import { createCycleHarness, type CycleHarness } from "./harness.ts";

/** What a test saw of the Get Surveys body it reshaped: bytes handed to the client so far, of how many. */
interface ListTap {
  pulled: number;
  total: number;
}

/**
 * Wraps fetch so that the Get Surveys body reaches the client in `chunkBytes` pieces, each only
 * when the client asks for it (a pull stream, with a timer turn between pieces, as a slow
 * network would deliver them), after `rewrite` has changed its text. Other responses pass as they are.
 */
function reshapeList(
  tap: ListTap,
  chunkBytes: number,
  rewrite: (text: string) => string = (text) => text,
): (fetch: FetchFunction) => FetchFunction {
  return (inner) => async (input, init) => {
    const response = await inner(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (!new URL(url).pathname.endsWith("/surveys")) return response;
    const bytes = new TextEncoder().encode(rewrite(await response.text()));
    tap.pulled = 0;
    tap.total = bytes.length;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          await new Promise((resolve) => setImmediate(resolve));
          const chunk = bytes.subarray(tap.pulled, tap.pulled + chunkBytes);
          tap.pulled += chunk.length;
          if (chunk.length > 0) controller.enqueue(chunk);
          if (tap.pulled >= bytes.length) controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

/** The store as a consumer sees it, without the times of this run. */
async function snapshot(harness: CycleHarness) {
  const { surveys } = await harness.store.listSurveys({ status: "all", limit: 1000 });
  const details = await Promise.all(surveys.map((survey) => harness.store.getSurvey(survey.id)));
  const changes = await harness.store.listChanges(0, 10_000);
  return {
    surveys: details.map((detail) => ({
      id: detail?.id,
      status: detail?.status,
      needsRefetch: detail?.needsRefetch,
      survey: detail?.survey,
      qualifications: detail?.qualifications,
      quotas: detail?.quotas,
    })),
    changes: changes.map((change) => `${change.type}:${change.surveyId}`).sort(),
  };
}

/** The same upstream changes, applied to a harness between its cycles. */
function churn(harness: CycleHarness, round: number): void {
  const live = harness.api.listSurveys(1001);
  const [first, second, third] = live;
  if (first)
    harness.api.replaceQualifications(first.SurveyId, [
      { QualificationId: 42, QualificationTypeId: 1, OptionIds: [round], OptionCodes: [String(round)] },
    ]);
  if (second) harness.api.updateSurvey(second.SurveyId, { Cpi: `${round + 1}.25` });
  if (third) harness.api.removeSurvey(third.SurveyId);
  harness.api.addSurvey(1001, { survey: { SurveyId: 900_000 + round } });
}

describe("the cycle over the streamed live list", () => {
  const harnesses: CycleHarness[] = [];
  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
  });
  const start = async (options: Parameters<typeof createCycleHarness>[0]) => {
    const harness = await createCycleHarness(options);
    harnesses.push(harness);
    return harness;
  };

  it("stores the same surveys and tells the same changes whether the list arrives whole or in 7-byte pieces", async () => {
    const tap = { pulled: 0, total: 0 };
    const now = () => Date.parse("2026-11-20T12:00:00Z");
    const whole = await start({ surveys: 25, seed: 5, now });
    const pieces = await start({ surveys: 25, seed: 5, now, wrapFetch: reshapeList(tap, 7) });
    for (let round = 0; round < 3; round++) {
      const [a, b] = [await whole.cycle(), await pieces.cycle()];
      expect(b.status).toBe("succeeded");
      expect(b.counts).toEqual(a.counts);
      churn(whole, round);
      churn(pieces, round);
    }
    expect(tap.pulled).toBe(tap.total);
    expect(await snapshot(pieces)).toEqual(await snapshot(whole));
  });

  it("drains the list off the network while the per-survey fetches hold the cycle's read", async () => {
    const tap = { pulled: 0, total: 0 };
    // Each qualifications answer waits until the whole list has left the network: a cycle that read
    // the network only as fast as its fetches free their slots would wait on itself until the deadline.
    const afterListDrained =
      (inner: FetchFunction): FetchFunction =>
      async (input, init) => {
        if (String(input instanceof Request ? input.url : input).includes("/survey-qualifications/")) {
          while (tap.total === 0 || tap.pulled < tap.total) await new Promise((resolve) => setTimeout(resolve, 5));
        }
        return inner(input, init);
      };
    const harness = await start({
      surveys: 40,
      concurrency: 2,
      wrapFetch: (fetch) => afterListDrained(reshapeList(tap, 256)(fetch)),
      cycle: { deadlineMs: 10_000 },
    });

    const result = await harness.cycle();

    expect(result).toMatchObject({ status: "succeeded", counts: { listed: 40, opened: 40 } });
    expect(tap.pulled).toBe(tap.total);
  });

  it("commits nothing when the list turns out cut short after surveys were read and fetched", async () => {
    const tap = { pulled: 0, total: 0 };
    let cut = false;
    const harness = await start({
      surveys: 12,
      wrapFetch: reshapeList(tap, 128, (text) => (cut ? text.slice(0, Math.floor(text.length * 0.8)) : text)),
    });
    await harness.cycle();
    const before = await snapshot(harness);
    harness.api.replaceQualifications(harness.api.listSurveys(1001)[0]?.SurveyId ?? 0, [
      { QualificationId: 7, QualificationTypeId: 1, OptionIds: [1], OptionCodes: ["1"] },
    ]);
    harness.api.addSurvey(1001, { survey: { SurveyId: 1 } });
    harness.takeRequests();
    cut = true;

    const result = await harness.cycle();

    expect(result.status).toBe("failed");
    expect(result.error).toMatch(/the body ended before its JSON was complete/);
    // The changed survey came before the cut, so its fetch ran; its result was rolled back with the rest.
    expect(harness.takeRequests().map((request) => request.operationId)).toContain("getSurveyQualifications");
    expect(await snapshot(harness)).toEqual(before);
    const [run] = await harness.store.listRuns(1);
    expect(run).toMatchObject({ status: "failed" });

    cut = false;
    expect((await harness.cycle()).counts).toMatchObject({ opened: 1, qualificationsChanged: 1 });
  });

  it("commits nothing when the body says hasError: true after its list", async () => {
    const tap = { pulled: 0, total: 0 };
    const harness = await start({
      surveys: 6,
      wrapFetch: reshapeList(tap, 200, (text) => `${text.slice(0, -1)},"hasError":true,"messages":["partial list"]}`),
    });

    const result = await harness.cycle();

    expect(result.status).toBe("failed");
    expect(result.error).toMatch(/reported an error \(hasError: true\).*partial list/);
    expect(await harness.store.listSurveys({ status: "all", limit: 10 })).toMatchObject({ surveys: [] });
    expect(await harness.store.latestSequence()).toBe(0);
  });
});
