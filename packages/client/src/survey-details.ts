import type {
  InvalidItem,
  Survey,
  SurveyListResponse,
  SurveyQualification,
  SurveyQualificationsResponse,
  SurveyQuota,
  SurveyQuotasResponse,
} from "@sds/schemas";
import type { RequestOptions } from "./client-options.ts";
import { ConfigurationError } from "./errors/configuration-error.ts";
import { RequestAbortedError } from "./errors/transport-errors.ts";
import { SdsError } from "./errors/sds-error.ts";
import { ConcurrencyLimiter } from "./internal/concurrency-limiter.ts";

/**
 * The three calls the fan-out makes, as `Surveys` has them. Named here rather than imported
 * from `resources/surveys.ts`, which imports this file: the two stay free of an import cycle.
 */
export interface SurveyDetailsSource {
  listItemwise(
    options?: RequestOptions,
  ): PromiseLike<{ readonly data: SurveyListResponse; readonly invalid: readonly InvalidItem[] }>;
  qualifications(surveyId: number, options?: RequestOptions): PromiseLike<SurveyQualificationsResponse>;
  quotas(surveyId: number, options?: RequestOptions): PromiseLike<SurveyQuotasResponse>;
}

/** Progress of `Surveys.listWithDetails`, reported after each survey. */
export interface DetailsProgress {
  /** Surveys done so far, failed ones included. */
  readonly completed: number;
  /** Surveys in the list (valid ones). */
  readonly total: number;
  /** Surveys with at least one failed request so far. */
  readonly failed: number;
  /** The survey just done. */
  readonly surveyId: number;
}

/** Options of `Surveys.listWithDetails`. */
export interface ListWithDetailsOptions {
  /** Surveys fetched at once (each needs one or two requests; the client's `maxConcurrency` applies too). @default 4 */
  readonly concurrency?: number | undefined;
  /** Fetch quotas: `"flagged"` only where `Has_Quotas` is true, `true` for every survey, `false` never. @default "flagged" */
  readonly includeQuotas?: boolean | "flagged" | undefined;
  /** Called after each survey. */
  readonly onProgress?: ((progress: DetailsProgress) => void) | undefined;
  /** Cancels the whole fan-out. */
  readonly signal?: AbortSignal | undefined;
}

/** A live survey with its details. */
export interface SurveyWithDetails {
  readonly survey: Survey;
  readonly qualifications: readonly SurveyQualification[];
  /** Present when quotas were fetched for this survey. */
  readonly quotas?: readonly SurveyQuota[];
}

/** A request of the fan-out that failed (after its retries). */
export interface SurveyDetailsFailure {
  readonly surveyId: number;
  readonly survey: Survey;
  readonly operation: "getSurveyQualifications" | "getSurveyQuotas";
  readonly error: SdsError;
}

/** The result of `Surveys.listWithDetails`. */
export interface SurveysWithDetails {
  /** Surveys whose every request succeeded, in list order. */
  readonly surveys: readonly SurveyWithDetails[];
  /** Failed requests; their surveys are not in `surveys`. */
  readonly failures: readonly SurveyDetailsFailure[];
  /** Surveys of the list that failed validation. */
  readonly invalid: readonly InvalidItem[];
}

type SurveyOutcome =
  | { readonly ok: true; readonly value: SurveyWithDetails }
  | { readonly ok: false; readonly failures: readonly SurveyDetailsFailure[] };

/** The implementation of `Surveys.listWithDetails`. */
export async function listSurveysWithDetails(
  surveys: SurveyDetailsSource,
  options: ListWithDetailsOptions = {},
): Promise<SurveysWithDetails> {
  const { signal, onProgress, includeQuotas = "flagged", concurrency = 4 } = options;
  if (concurrency !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(concurrency) || concurrency < 1)) {
    throw new ConfigurationError(
      `\`concurrency\` must be a whole number, 1 or more, or Infinity; got ${String(concurrency)}.`,
      "concurrency",
    );
  }
  const { data: list, invalid } = await surveys.listItemwise({ signal });
  const limiter = new ConcurrencyLimiter(concurrency);
  const total = list.Surveys.length;
  let completed = 0;
  let failed = 0;

  const fetchDetails = async (survey: Survey): Promise<SurveyOutcome> => {
    const release = await limiter.acquire(signal);
    try {
      const surveyId = survey.SurveyId;
      const wantsQuotas = includeQuotas === true || (includeQuotas === "flagged" && survey.Has_Quotas);
      const [qualifications, quotas] = await Promise.allSettled([
        surveys.qualifications(surveyId, { signal }),
        wantsQuotas ? surveys.quotas(surveyId, { signal }) : Promise.resolve(undefined),
      ]);
      if (qualifications.status === "rejected" || quotas.status === "rejected") {
        const failures: SurveyDetailsFailure[] = [];
        if (qualifications.status === "rejected")
          failures.push(toFailure(survey, "getSurveyQualifications", qualifications.reason));
        if (quotas.status === "rejected") failures.push(toFailure(survey, "getSurveyQuotas", quotas.reason));
        failed++;
        return { ok: false, failures };
      }
      const value: SurveyWithDetails = {
        survey,
        qualifications: qualifications.value.Qualifications,
        ...(quotas.value === undefined ? {} : { quotas: quotas.value.Quotas }),
      };
      return { ok: true, value };
    } finally {
      release();
      completed++;
      onProgress?.({ completed, total, failed, surveyId: survey.SurveyId });
    }
  };

  const settled = await Promise.allSettled(list.Surveys.map(fetchDetails));
  const result = { surveys: [] as SurveyWithDetails[], failures: [] as SurveyDetailsFailure[], invalid };
  for (const outcome of settled) {
    // Only the caller's abort (or a bug) escapes a survey's task: both end the fan-out.
    if (outcome.status === "rejected") throw outcome.reason;
    if (outcome.value.ok) result.surveys.push(outcome.value.value);
    else result.failures.push(...outcome.value.failures);
  }
  return result;
}

/** A failed request as a failure entry; the caller's abort and non-SDS errors are rethrown instead. */
function toFailure(survey: Survey, operation: SurveyDetailsFailure["operation"], error: unknown): SurveyDetailsFailure {
  if (!(error instanceof SdsError) || error instanceof RequestAbortedError) throw error;
  return { surveyId: survey.SurveyId, survey, operation, error };
}
