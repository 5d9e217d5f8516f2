import { z } from "zod";
import { integer, rejectUnknown, single, type QueryParameter } from "../http/query-params.ts";

/** Default and largest page size of `/v1/changes`. */
export const FEED_PAGE = { default: 100, max: 1000 } as const;
/** Longest `wait` of `/v1/changes`, in seconds: beyond it proxies tend to cut idle requests. */
export const MAX_WAIT_SECONDS = 60;

/** The query parameters of the two feeds, `GET /v1/changes` and `GET /v1/outcomes`, parsed by {@link parseFeedQuery}. */
export const feedQueryParameters = [
  { name: "after", description: "Sequence number: the entries after it.", schema: z.int().min(0).default(0) },
  { name: "limit", description: "Page size.", schema: z.int().min(1).max(FEED_PAGE.max).default(FEED_PAGE.default) },
  {
    name: "wait",
    description: "Seconds to long-poll when nothing follows `after`.",
    schema: z.int().min(0).max(MAX_WAIT_SECONDS).default(0),
  },
] as const satisfies readonly QueryParameter[];

const changeParams: ReadonlySet<string> = new Set(feedQueryParameters.map((parameter) => parameter.name));

/** The query of a feed (`GET /v1/changes`, `GET /v1/outcomes`). */
export interface FeedQuery {
  readonly after: number;
  readonly limit: number;
  readonly waitSeconds: number;
}

/** Parses the query of a feed. @throws ParamError */
export function parseFeedQuery(params: URLSearchParams): FeedQuery {
  rejectUnknown(params, changeParams);
  const after = single(params, "after");
  const limit = single(params, "limit");
  const wait = single(params, "wait");
  return {
    after: after === undefined ? 0 : integer("after", after, 0, Number.MAX_SAFE_INTEGER),
    limit: limit === undefined ? FEED_PAGE.default : integer("limit", limit, 1, FEED_PAGE.max),
    waitSeconds: wait === undefined ? 0 : integer("wait", wait, 0, MAX_WAIT_SECONDS),
  };
}
