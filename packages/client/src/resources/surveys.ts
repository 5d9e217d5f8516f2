import {
  parseSurveyList,
  Survey,
  SurveyListResponse,
  type InvalidItem,
  type SurveyGroupsResponse,
  type SurveyQualificationsResponse,
  type SurveyQuotasResponse,
  type SurveyStatsResponse,
} from "@sds/schemas";
import { z } from "zod";
import type { ApiPromise } from "../api-promise.ts";
import type { RequestOptions, ValidationMode } from "../client-options.ts";
import { operationParser } from "../internal/operation-parsers.ts";
import type { RawListItem } from "../internal/list-body-reader.ts";
import type { Transport } from "../internal/transport.ts";
import { schemaParser, toValidationIssues, type ResponseParser } from "../internal/validate-response.ts";
import { SurveyStream, type StreamedSurvey, type SurveyListEnvelope } from "../survey-stream.ts";
import { listSurveysWithDetails, type ListWithDetailsOptions, type SurveysWithDetails } from "../survey-details.ts";

/** The result of {@link Surveys.listItemwise}: the list with its valid surveys only, and the others. */
export interface ItemwiseSurveyList {
  /** The response, its `Surveys` holding only the surveys that passed validation, in order. */
  readonly data: SurveyListResponse;
  /** The surveys that failed validation: index in the list, the item as received, the issues. */
  readonly invalid: readonly InvalidItem[];
}

const wholeListParser = operationParser("listSurveys");

const itemwiseSurveyListParser: ResponseParser<ItemwiseSurveyList> = (body, mode) => {
  if (mode === "off") return { success: true, data: { data: body as SurveyListResponse, invalid: [] } };
  // The common case, a list with no bad survey, takes the fast whole-list check; only a list
  // that fails it is parsed survey by survey to tell the good from the bad.
  const whole = wholeListParser(body, mode);
  if (whole.success) return { success: true, data: { data: whole.data, invalid: [] } };
  const result = parseSurveyList(body, { strict: mode === "strict" });
  return result.success
    ? { success: true, data: { data: result.data, invalid: result.invalid } }
    : { success: false, issues: toValidationIssues(result.error.issues) };
};

const surveyParser = schemaParser(Survey);
// The envelope is checked with its list given as `[]`: each survey was checked on its own as it passed.
const envelopeParser = schemaParser(SurveyListResponse.extend({ Surveys: z.array(z.unknown()) }));

function parseStreamedSurvey({ value, index, text }: RawListItem, mode: ValidationMode): StreamedSurvey {
  if (mode === "off") return { survey: value as Survey, index, json: text };
  const outcome = surveyParser(value, mode);
  return outcome.success
    ? { survey: outcome.data, index, json: text }
    : { invalid: { index, item: value, issues: outcome.issues }, index, json: text };
}

const parseStreamEnvelope: ResponseParser<SurveyListEnvelope> = (body, mode) => {
  const outcome = envelopeParser(body, mode);
  if (!outcome.success) return outcome;
  const { Surveys: _surveys, ...envelope } = outcome.data;
  return { success: true, data: envelope };
};

/**
 * Live surveys and what belongs to each: qualifications, quotas, stats, groups.
 *
 * @example
 * ```ts
 * const { Surveys } = await sds.surveys.list();
 * for (const survey of Surveys) {
 *   const { Qualifications } = await sds.surveys.qualifications(survey.SurveyId);
 * }
 * ```
 */
export class Surveys {
  readonly #transport: Transport;

  /** @internal Resources are created by the client: use `sds.surveys`. */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Get Surveys (`GET /surveys`): every live survey. One invalid survey makes the whole call
   * throw `ResponseValidationError`; use {@link Surveys.listItemwise} to keep the valid ones.
   */
  list(options?: RequestOptions): ApiPromise<SurveyListResponse> {
    return this.#transport.request({ operation: "listSurveys", parse: operationParser("listSurveys") }, options);
  }

  /**
   * Get Surveys, validated survey by survey: resolves to the valid surveys and a report of
   * the invalid ones (index, item, issues), so one malformed survey costs only itself. Only a
   * malformed envelope (or a non-array `Surveys`) throws `ResponseValidationError`.
   *
   * @example
   * ```ts
   * const { data, invalid } = await sds.surveys.listItemwise();
   * for (const bad of invalid) console.warn(`survey #${bad.index} skipped`, bad.issues);
   * ```
   */
  listItemwise(options?: RequestOptions): ApiPromise<ItemwiseSurveyList> {
    return this.#transport.request({ operation: "listSurveys", parse: itemwiseSurveyListParser }, options);
  }

  /**
   * Get Surveys read as it arrives: yields each survey, validated on its own, as soon as the body
   * holds it, without ever holding the whole body or the whole list (memory stays flat however
   * many surveys are live). An item that fails validation is yielded as `{ invalid }` (index,
   * item, issues) and never stops the list. `result` gives the envelope once the list is read.
   *
   * Errors, retries and hooks are those of {@link Surveys.list}, except that an attempt is
   * retried only while no survey has been yielded, and the attempt timeout covers the response
   * headers and then each wait for the next chunk of the body (the loop's own work does not
   * count). The call holds one of the client's `maxConcurrency` slots until the loop ends.
   *
   * **Commit nothing before the loop completes**: a body cut short, malformed, or saying
   * `hasError: true` after its list throws at the end, after the surveys before it were yielded.
   *
   * @example
   * ```ts
   * const stream = sds.surveys.stream();
   * for await (const { survey, invalid } of stream) {
   *   if (survey) staging.add(survey);
   *   else console.warn(`survey #${invalid.index} skipped`, invalid.issues);
   * }
   * const { envelope } = await stream.result; // the loop completed: the list is whole
   * staging.commit(envelope.SupplierId);
   * ```
   */
  stream(options?: RequestOptions): SurveyStream {
    return new SurveyStream((onStopped) =>
      this.#transport.streamList(
        {
          operation: "listSurveys",
          listKey: "Surveys",
          parseItem: parseStreamedSurvey,
          parseEnvelope: parseStreamEnvelope,
          onStopped,
        },
        options,
      ),
    );
  }

  /** Get Survey Qualifications (`GET /survey-qualifications/{surveyId}`): the survey's qualification records. */
  qualifications(surveyId: number, options?: RequestOptions): ApiPromise<SurveyQualificationsResponse> {
    return this.#transport.request(
      {
        operation: "getSurveyQualifications",
        pathParams: { surveyId },
        parse: operationParser("getSurveyQualifications"),
      },
      options,
    );
  }

  /** Get Survey Quotas (`GET /survey-quotas/{surveyId}`, observed path, override with `paths.getSurveyQuotas`). */
  quotas(surveyId: number, options?: RequestOptions): ApiPromise<SurveyQuotasResponse> {
    return this.#transport.request(
      { operation: "getSurveyQuotas", pathParams: { surveyId }, parse: operationParser("getSurveyQuotas") },
      options,
    );
  }

  /** Get Survey Stats (`GET /survey-stats/{surveyId}`, guessed path, override with `paths.getSurveyStats`). */
  stats(surveyId: number, options?: RequestOptions): ApiPromise<SurveyStatsResponse> {
    return this.#transport.request(
      { operation: "getSurveyStats", pathParams: { surveyId }, parse: operationParser("getSurveyStats") },
      options,
    );
  }

  /** Get Survey Groups (`GET /survey-groups/{surveyId}`, guessed path, override with `paths.getSurveyGroups`). */
  groups(surveyId: number, options?: RequestOptions): ApiPromise<SurveyGroupsResponse> {
    return this.#transport.request(
      { operation: "getSurveyGroups", pathParams: { surveyId }, parse: operationParser("getSurveyGroups") },
      options,
    );
  }

  /**
   * The common fan-out in one call (the one method here that makes several requests): every
   * live survey with its qualifications, and its quotas where `Has_Quotas`, fetched with
   * bounded concurrency. A survey whose requests fail is reported in `failures` instead of
   * failing the whole call; invalid surveys of the list are reported in `invalid`. Only a
   * failure of the list itself, or the caller's abort, rejects.
   *
   * @example
   * ```ts
   * const { surveys, failures, invalid } = await sds.surveys.listWithDetails({
   *   onProgress: ({ completed, total }) => console.log(`${completed}/${total}`),
   * });
   * ```
   */
  listWithDetails(options?: ListWithDetailsOptions): Promise<SurveysWithDetails> {
    return listSurveysWithDetails(this, options);
  }
}
