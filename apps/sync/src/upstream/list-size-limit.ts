import type { FetchFunction as ClientFetch } from "@sds/client";
import { SyncError } from "../common/errors.ts";
import type { OperationMatcher } from "./counting-fetch.ts";

/** Default `SYNC_MAX_LIST_BYTES`: about 500,000 surveys. */
export const DEFAULT_MAX_LIST_BYTES = 536_870_912;

/** The Get Surveys body grew past `SYNC_MAX_LIST_BYTES`: the cycle fails, nothing of it is kept. */
export class ListTooLargeError extends SyncError {
  override name = "ListTooLargeError" as const;
  readonly limit: number;
  constructor(limit: number) {
    super(`the live list exceeded ${limit} bytes (SYNC_MAX_LIST_BYTES); the cycle was abandoned`);
    this.limit = limit;
  }
}

/**
 * Wraps `fetch` so the Get Surveys body stops with a {@link ListTooLargeError} once it passes
 * `maxBytes` (by its Content-Length at once, else as its bytes arrive). `operationOf` (the
 * matcher built from the same paths as the client) tells which request that is; other requests
 * pass as they are (the client holds those whole and they are small).
 */
export function limitListBody(inner: ClientFetch, maxBytes: number, operationOf: OperationMatcher): ClientFetch {
  return async (request, init) => {
    const response = await inner(request, init);
    if (operationOf(init?.method ?? request.method, request.url) !== "listSurveys" || response.body === null)
      return response;
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (declared > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw new ListTooLargeError(maxBytes);
    }
    let seen = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) controller.error(new ListTooLargeError(maxBytes));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
