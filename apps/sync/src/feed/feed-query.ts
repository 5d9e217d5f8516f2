import { FEED_PAGE, FeedQuery as FeedQuerySchema, MAX_WAIT_SECONDS } from "@sds/sync-client";
import { integer, rejectUnknown, single, type QueryParameter } from "../http/query-params.ts";

/** The query parameters of the two feeds, `GET /v1/changes` and `GET /v1/outcomes`, parsed by {@link parseFeedQuery}: `@sds/sync-client`'s `FeedQuery`. */
export const feedQueryParameters = Object.entries(FeedQuerySchema.shape).map(([name, schema]) => ({
  name,
  description: schema.description ?? name,
  schema,
})) satisfies readonly QueryParameter[];

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
