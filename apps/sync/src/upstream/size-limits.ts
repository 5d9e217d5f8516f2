import { DEFAULT_MAX_LIST_BYTES, DEFAULT_MAX_RECORD_BYTES } from "../config/config.ts";
import { SyncError } from "../common/errors.ts";
import type { QuarantineInput } from "../store/store.ts";
import type { FetchFunction as ClientFetch } from "@sds/client";
import { operationOf } from "./counting-fetch.ts";
import type { FetchFailure, SurveyFetchResult } from "../cycle/fetch-children.ts";
import { quarantineItemText } from "../cycle/quarantine.ts";

export { DEFAULT_MAX_LIST_BYTES, DEFAULT_MAX_RECORD_BYTES };

/** The Get Surveys body grew past `SYNC_MAX_LIST_BYTES`: the cycle fails, nothing of it is kept. */
export class ListTooLargeError extends SyncError {
  override name = "ListTooLargeError" as const;
  readonly limit: number;
  constructor(limit: number) {
    super(`the live list exceeded ${limit} bytes (SYNC_MAX_LIST_BYTES); the cycle was abandoned`);
    this.limit = limit;
  }
}

/** UTF-8 size of a JSON text, without scanning it when it obviously fits (at most 3 bytes per UTF-16 unit). */
export function utf8Bytes(text: string, limit: number): number {
  return text.length * 3 <= limit ? text.length : Buffer.byteLength(text, "utf8");
}

/** The issue list of a record over `SYNC_MAX_RECORD_BYTES`, as quarantine stores it. */
export function oversizeIssues(bytes: number, limit: number): string {
  return JSON.stringify([{ path: [], code: "too_big", message: `the record is ${bytes} bytes; SYNC_MAX_RECORD_BYTES is ${limit}` }]);
}

/**
 * Applies the record limit to one survey's fetched children: a kind whose records include one
 * over the limit is treated as a failed fetch (the survey is marked for refetch, its stored
 * records stay) and quarantined under `<kind>:<SurveyId>`.
 */
export function limitChildRecords(fetched: SurveyFetchResult, surveyId: number, limit: number): SurveyFetchResult {
  let result = fetched;
  for (const kind of ["qualifications", "quotas"] as const) {
    const records = result[kind];
    if (records === undefined) continue;
    const largest = Math.max(0, ...records.map((record) => utf8Bytes(record.raw, limit)));
    if (largest <= limit) continue;
    const failure: FetchFailure = { surveyId, kind, error: new Error(`a ${kind} record of survey ${surveyId} is ${largest} bytes (SYNC_MAX_RECORD_BYTES is ${limit})`) };
    const entry: QuarantineInput = {
      key: `${kind}:${surveyId}`,
      surveyId,
      source: kind,
      item: quarantineItemText(`[${records.map((record) => record.raw).join(",")}]`),
      issues: oversizeIssues(largest, limit),
    };
    result = { ...result, [kind]: undefined, failures: [...result.failures, failure], quarantine: [...result.quarantine, entry] };
  }
  return result;
}

/**
 * Wraps `fetch` so the Get Surveys body stops with a {@link ListTooLargeError} once it passes
 * `maxBytes` (by its Content-Length at once, else as its bytes arrive). Other requests pass as
 * they are (the client holds those whole and they are small).
 */
export function limitListBody(inner: ClientFetch, maxBytes: number): ClientFetch {
  return async (request, init) => {
    const response = await inner(request, init);
    if (operationOf(init?.method ?? request.method, request.url) !== "listSurveys" || response.body === null) return response;
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
    return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
