import { describe, expect, it } from "vitest";
import type { StoredSurveyState } from "../inventory-store/store.ts";
import { rawHash } from "./survey-record.ts";
import { SurveyStates } from "./survey-states.ts";

const stored: StoredSurveyState = {
  id: 7,
  status: "live",
  rawHash: rawHash('{"SurveyId":7}'),
  recordHash: rawHash('{"SurveyId":7,"Cpi":"1.50"}'),
  qualUpdated: "2026-11-23T13:40:06.123Z",
  quotaUpdated: "2026-11-23T13:40:06Z",
  qualificationsMarker: "2026-11-23T13:40:06.123Z",
  quotasMarker: null,
  needsRefetch: true,
  quotaCount: 3,
};

describe("SurveyStates", () => {
  it("gives back every field exactly as set, for each date-time shape, digests and odd text alike", () => {
    const shapes: StoredSurveyState[] = [
      stored,
      {
        ...stored,
        id: 8,
        status: "closed",
        needsRefetch: false,
        quotaCount: 0,
        qualificationsMarker: null,
        quotasMarker: "2026-11-23T13:40:06",
      },
      // No zone: must not be read as local time; a lone digit of fraction and a leap second do not fit a packed shape.
      {
        ...stored,
        id: 9,
        qualUpdated: "2026-11-23T13:40:06.120",
        quotaUpdated: "2026-11-23T13:40:06.1Z",
        qualificationsMarker: "2016-12-31T23:59:60Z",
        quotasMarker: "",
      },
      // Not a base64 SHA-1: kept as text; a lower-case variant of a date-time likewise.
      {
        ...stored,
        id: 10,
        rawHash: "not-a-digest",
        recordHash: `${stored.recordHash.slice(0, 27)}A`,
        qualUpdated: "2026-11-23t13:40:06Z",
        quotaUpdated: "+010000-01-01T00:00:00.000Z",
      },
      { ...stored, id: 2 ** 31, quotaCount: 70_000 },
    ];
    const states = SurveyStates.from(shapes);
    for (const state of shapes) expect(states.get(state.id)).toStrictEqual(state);
    expect(states.size).toBe(shapes.length);
    expect([...states.values()]).toStrictEqual(shapes);
    expect(states.get(11)).toBeUndefined();
  });

  it("replaces a state in place, including a marker going back to null", () => {
    const states = SurveyStates.from([stored, { ...stored, id: 8 }]);
    const next: StoredSurveyState = {
      ...stored,
      rawHash: "replaced",
      qualificationsMarker: null,
      quotasMarker: "2026-11-24T00:00:00.000Z",
      needsRefetch: false,
      quotaCount: 0,
    };
    states.set(next);
    expect(states.get(7)).toStrictEqual(next);
    expect(states.get(8)).toStrictEqual({ ...stored, id: 8 });
    expect(states.size).toBe(2);
  });

  it("closes a survey keeping every other field, and counts only live ones", () => {
    const states = SurveyStates.from([stored, { ...stored, id: 8 }, { ...stored, id: 9 }]);
    states.close(8);
    states.close(404);
    expect(states.get(8)).toStrictEqual({ ...stored, id: 8, status: "closed" });
    expect([...states.liveIds()]).toEqual([7, 9]);
    expect(states.liveCount()).toBe(2);
    states.set({ ...stored, id: 8 });
    expect(states.get(8)?.status).toBe("live");
  });

  it("keeps thousands of surveys apart as its columns grow", () => {
    const many = Array.from({ length: 5000 }, (_, index): StoredSurveyState => ({
      ...stored,
      id: index * 3 + 1,
      rawHash: rawHash(String(index)),
      qualUpdated: new Date(Date.UTC(2026, 0, 1) + index * 1000).toISOString(),
      quotaCount: index,
    }));
    const states = SurveyStates.from(many);
    for (const state of many) expect(states.get(state.id)).toStrictEqual(state);
  });
});
