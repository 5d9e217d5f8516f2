import { describe, expect, it } from "vitest";
import { ParamError } from "../http/query-params.ts";
import { parseFeedQuery } from "./feed-query.ts";

const changes = (query: string) => parseFeedQuery(new URLSearchParams(query));

/** The ParamError a parse throws: its parameter and message. */
function refusal(parse: () => unknown): { param: string; message: string } {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(ParamError);
    const { param, message } = error as ParamError;
    return { param, message };
  }
  throw new Error("expected a ParamError");
}

describe("parseFeedQuery", () => {
  it("defaults to the start of the feed, 100 a page, no wait", () => {
    expect(changes("")).toEqual({ after: 0, limit: 100, waitSeconds: 0 });
    expect(changes("after=41&limit=1000&wait=60")).toEqual({ after: 41, limit: 1000, waitSeconds: 60 });
  });

  it.each([
    ["after=-1", "after"],
    ["after=1.5", "after"],
    ["after=99999999999999999999", "after"],
    ["limit=0", "limit"],
    ["wait=61", "wait"],
    ["since=3", "since"],
  ])("refuses %s, naming %s", (query, param) => {
    expect(refusal(() => changes(query)).param).toBe(param);
  });
});
