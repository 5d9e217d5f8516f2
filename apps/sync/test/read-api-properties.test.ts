import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * The read API's parameter parsing, fuzzed over real HTTP: whatever a caller sends, the answer is
 * a JSON 2xx or 4xx with the error envelope, never a 5xx, and never an internal detail (a stack
 * frame, a source path, a driver message).
 */

const RUNS = 250;

/** A value as hostile callers send them: known words, numbers of every shape, dates, junk, unicode. */
const hostileValue = fc.oneof(
  fc.constantFrom(
    "",
    "live",
    "closed",
    "all",
    "mobile",
    "desktop,tablet",
    "watch",
    "0",
    "-1",
    "1e3",
    "NaN",
    "Infinity",
    "0x10",
    "1.5",
    " 7",
    "%",
    "%zz",
    "\u0000",
  ),
  fc.integer({ min: -2, max: 2_000 }).map(String),
  fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String),
  fc.double({ noNaN: false }).map(String),
  fc
    .date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true })
    .map((date) => date.toISOString()),
  fc
    .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 19 }), fc.integer({ min: 0, max: 39 }))
    .map(([y, m, d]) => `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`),
  fc.array(fc.integer({ min: -5, max: 200 }), { maxLength: 120 }).map((ids) => ids.join(",")),
  fc.base64String({ maxLength: 40 }),
  fc.string({ maxLength: 40, unit: "binary" }),
);

const surveyParams = [
  "status",
  "language",
  "minCpi",
  "maxCpi",
  "maxLoi",
  "device",
  "updatedSince",
  "cursor",
  "limit",
  "colour",
];
const changeParams = ["after", "limit", "wait", "since"];

function query(names: readonly string[]) {
  return (
    fc
      .array(fc.tuple(fc.constantFrom(...names), hostileValue), { maxLength: 5 })
      // wait is held for up to its value in seconds: keep the fuzz fast by never waiting.
      .map((pairs) =>
        pairs
          .filter(([name]) => name !== "wait")
          .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
          .join("&"),
      )
  );
}

describe("the read API under generated parameters", () => {
  let harness: ServiceHarness;
  beforeAll(async () => {
    harness = await startServiceHarness({ surveys: 30 });
  });
  afterAll(async () => {
    await harness.close();
  });

  async function expectWellFormedAnswer(path: string): Promise<void> {
    const response = await harness.request(path);
    const text = await response.text();
    expect(response.status, `${path} answered ${response.status}: ${text.slice(0, 300)}`).toBeLessThan(500);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = JSON.parse(text) as { error?: { code: unknown; message: unknown } };
    if (response.status >= 400)
      expect(body.error).toEqual({ code: expect.any(String) as unknown, message: expect.any(String) as unknown });
    expect(text).not.toMatch(/\bat .+:\d+:\d+|node_modules|\.ts\b|SQLITE|sqlite3?_|syntax error|TypeError|RangeError/);
  }

  it(`answers ${RUNS} generated /v1/surveys queries with 200 or 400, never a 5xx or a stack trace`, async () => {
    await fc.assert(
      fc.asyncProperty(query(surveyParams), async (search) => {
        await expectWellFormedAnswer(`/v1/surveys?${search}`);
      }),
      { numRuns: RUNS },
    );
  });

  it(`answers ${RUNS} generated /v1/changes queries with 200 or 400, never a 5xx or a stack trace`, async () => {
    await fc.assert(
      fc.asyncProperty(query(changeParams), async (search) => {
        await expectWellFormedAnswer(`/v1/changes?${search}`);
      }),
      { numRuns: RUNS },
    );
  });

  it(`answers ${RUNS} generated survey ids with 200, 400 or 404, never a 5xx or a stack trace`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(hostileValue.map(encodeURIComponent), fc.constantFrom("%", "%E0%A4%A", "..", "%2F", "1%00")),
        async (id) => {
          await expectWellFormedAnswer(`/v1/surveys/${id}`);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
