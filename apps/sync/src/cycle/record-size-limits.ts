import type { QuarantineInput } from "../inventory-store/store.ts";
import type { FetchFailure, SurveyFetchResult } from "./fetch-children.ts";
import { quarantineItemText } from "./quarantine.ts";

/** Default `SYNC_MAX_RECORD_BYTES`: a survey is about 1 KB, a long ZIP-code qualification some 100 KB. */
export const DEFAULT_MAX_RECORD_BYTES = 1_048_576;

/** UTF-8 size of a JSON text, without scanning it when it obviously fits (at most 3 bytes per UTF-16 unit). */
export function utf8Bytes(text: string, limit: number): number {
  return text.length * 3 <= limit ? text.length : Buffer.byteLength(text, "utf8");
}

/** The issue list of a record over `SYNC_MAX_RECORD_BYTES`, as quarantine stores it. */
export function oversizeIssues(bytes: number, limit: number): string {
  return JSON.stringify([
    { path: [], code: "too_big", message: `the record is ${bytes} bytes; SYNC_MAX_RECORD_BYTES is ${limit}` },
  ]);
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
    const failure: FetchFailure = {
      surveyId,
      kind,
      error: new Error(
        `a ${kind} record of survey ${surveyId} is ${largest} bytes (SYNC_MAX_RECORD_BYTES is ${limit})`,
      ),
    };
    const entry: QuarantineInput = {
      key: `${kind}:${surveyId}`,
      surveyId,
      source: kind,
      item: quarantineItemText(`[${records.map((record) => record.raw).join(",")}]`),
      issues: oversizeIssues(largest, limit),
    };
    result = {
      ...result,
      [kind]: undefined,
      failures: [...result.failures, failure],
      quarantine: [...result.quarantine, entry],
    };
  }
  return result;
}
