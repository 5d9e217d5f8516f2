import type { SurveyDetailsFailure } from "@sds/client";
import type { InvalidItem, Survey } from "@sds/schemas";
import type { SdsClient } from "../../connection/client.ts";
import type { ExportRecord } from "./export-writer.ts";

/** Options of {@link exportInListOrder}. */
export interface ExportFanOutOptions {
  /** Surveys whose details are fetched at once. */
  readonly concurrency: number;
  /** Fetch quotas: `"flagged"` only where `Has_Quotas`, `true` for every survey, `false` never. */
  readonly includeQuotas: boolean | "flagged";
  /** The surveys of the list to export, in list order (the filters of `sds surveys list`). @default all of them */
  readonly select?: (surveys: readonly Survey[]) => readonly Survey[];
  readonly signal: AbortSignal;
  /** Called after each survey, failed ones included. */
  readonly onProgress: (completed: number, total: number) => void;
  /** Writes one record; the fan-out waits for it (backpressure) before handing over the next. */
  readonly onRecord: (record: ExportRecord, index: number) => Promise<void>;
}

/** What is left to report once every survey was handed over. */
export interface ExportFanOutResult {
  /** Live surveys in the list (before `select`). */
  readonly live: number;
  /** Records handed to `onRecord`. */
  readonly written: number;
  readonly failures: readonly SurveyDetailsFailure[];
  /** Surveys of the list that failed validation. */
  readonly invalid: readonly InvalidItem[];
}

type Outcome =
  | { readonly ok: true; readonly record: ExportRecord }
  | { readonly ok: false; readonly failures: readonly SurveyDetailsFailure[] };

/**
 * Every live survey with its qualifications and quotas, handed to `onRecord` one at a time in
 * list order as soon as it is fetched, with at most `concurrency` surveys in flight. Unlike the
 * client's `listWithDetails`, which answers once everything is fetched, this lets the export
 * write as it goes: `sds export | head -1` sees its line at once, and when the reader quits, the
 * next write fails (EPIPE, and the entry point exits) before the remaining surveys are fetched.
 * A survey whose requests fail is reported in `failures` and skipped; only the list request,
 * the caller's abort or a failing `onRecord` reject.
 */
export async function exportInListOrder(client: SdsClient, options: ExportFanOutOptions): Promise<ExportFanOutResult> {
  const { isRequestAbortedError, isSdsError } = await import("@sds/client");
  const { signal } = options;
  const { data: list, invalid } = await client.surveys.listItemwise({ signal });
  const surveys = options.select === undefined ? list.Surveys : options.select(list.Surveys);

  const fetchOne = async (survey: Survey): Promise<Outcome> => {
    const wantsQuotas = options.includeQuotas === true || (options.includeQuotas === "flagged" && survey.Has_Quotas);
    const [qualifications, quotas] = await Promise.allSettled([
      client.surveys.qualifications(survey.SurveyId, { signal }),
      wantsQuotas ? client.surveys.quotas(survey.SurveyId, { signal }) : Promise.resolve(undefined),
    ]);
    const failures: SurveyDetailsFailure[] = [];
    for (const [settled, operation] of [
      [qualifications, "getSurveyQualifications"],
      [quotas, "getSurveyQuotas"],
    ] as const) {
      if (settled.status === "fulfilled") continue;
      // The caller's abort, or a bug, ends the export; a failed request only skips this survey.
      if (!isSdsError(settled.reason) || isRequestAbortedError(settled.reason)) throw settled.reason;
      failures.push({ surveyId: survey.SurveyId, survey, operation, error: settled.reason });
    }
    if (qualifications.status === "rejected" || quotas.status === "rejected") return { ok: false, failures };
    return {
      ok: true,
      record: { survey, qualifications: qualifications.value.Qualifications, quotas: quotas.value?.Quotas ?? null },
    };
  };

  const inFlight: Promise<Outcome>[] = [];
  let started = 0;
  const startNext = () => {
    const survey = surveys[started++];
    if (survey === undefined) return;
    const outcome = fetchOne(survey);
    // Awaited in order below; until then a rejection (an abort) must not count as unhandled.
    outcome.catch(() => undefined);
    inFlight.push(outcome);
  };
  while (started < Math.min(options.concurrency, surveys.length)) startNext();

  const failures: SurveyDetailsFailure[] = [];
  let written = 0;
  for (let index = 0; index < surveys.length; index++) {
    const outcome = await (inFlight.shift() as Promise<Outcome>);
    startNext();
    if (outcome.ok) await options.onRecord(outcome.record, written++);
    else failures.push(...outcome.failures);
    options.onProgress(index + 1, surveys.length);
  }
  return { live: list.Surveys.length, written, failures, invalid };
}
