import type { InvalidItem, Survey, SurveyListResponse } from "@sds/schemas";
import type { ResponseInfo, WithResponse } from "./api-promise.ts";
import type { RequestContext } from "./errors/sds-error.ts";
import { RequestAbortedError } from "./errors/transport-errors.ts";

/**
 * One entry of {@link SurveyStream}: a valid survey, or an item of the list that failed
 * validation (reported, never fatal). Test `entry.survey` (or `entry.invalid`) to tell them apart.
 */
export type StreamedSurvey =
  | {
      /** The survey, validated. */
      readonly survey: Survey;
      readonly invalid?: undefined;
      /** Position in the list as received. */
      readonly index: number;
      /**
       * The item's JSON text exactly as the body carried it (whitespace and escapes included),
       * which the survey was parsed from: hash or store it without serialising the survey again.
       * It may share memory with the chunk of the body it came from: keep a hash of it, or the
       * survey, rather than many of these.
       */
      readonly json: string;
    }
  | {
      readonly survey?: undefined;
      /** The item that failed validation: its index, the item as received and the issues. */
      readonly invalid: InvalidItem;
      /** Position in the list as received. */
      readonly index: number;
      /** The item's JSON text exactly as the body carried it. */
      readonly json: string;
    };

/** Every field of the Get Surveys response except `Surveys`: the envelope and `SupplierId`, unknown fields kept. */
export type SurveyListEnvelope = Pick<
  SurveyListResponse,
  "status" | "hasError" | "messages" | "error" | "SupplierId"
> & { readonly [field: string]: unknown };

/** What {@link SurveyStream.result} resolves to once the whole list has been read. */
export interface SurveyStreamResult {
  /** The response without its list: `SupplierId`, `status`, `hasError`, `messages`, `error`, unknown fields. */
  readonly envelope: SurveyListEnvelope;
  /** Status, headers, request id, attempts and the duration up to the end of the body. */
  readonly response: ResponseInfo;
  /** Valid surveys handed out. */
  readonly surveys: number;
  /** Invalid items handed out. */
  readonly invalid: number;
}

/**
 * The live list read as it arrives: an async iterable of {@link StreamedSurvey}, returned by
 * `sds.surveys.stream()`. Iterate it once with `for await`; the request is sent when the
 * iteration starts, and only one survey (and one chunk of the body) is held at a time, however
 * long the list.
 *
 * **Do not commit anything before the iteration completes.** The body is only known to be
 * whole, well-formed and free of `hasError: true` at its end: a body that is cut short,
 * malformed, or says `hasError: true` after its list makes the iteration throw at the end, after
 * the surveys before it were handed out. Stage what you receive, and commit once the loop has
 * finished without throwing.
 */
export class SurveyStream implements AsyncIterable<StreamedSurvey> {
  readonly #open: (
    onStopped: (request: RequestContext) => void,
  ) => AsyncGenerator<readonly StreamedSurvey[], WithResponse<SurveyListEnvelope>, undefined>;
  readonly #result: Promise<SurveyStreamResult>;
  #resolve: (result: SurveyStreamResult) => void = () => undefined;
  #reject: (error: unknown) => void = () => undefined;
  #iterated = false;

  /** @internal Created by `sds.surveys.stream()`; `open` starts the call. */
  constructor(
    open: (
      onStopped: (request: RequestContext) => void,
    ) => AsyncGenerator<readonly StreamedSurvey[], WithResponse<SurveyListEnvelope>, undefined>,
  ) {
    this.#open = open;
    this.#result = new Promise<SurveyStreamResult>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Awaiting the result is optional: its rejection (the iteration's error, thrown there too) must not go unhandled.
    this.#result.catch(() => undefined);
  }

  /**
   * Settles when the iteration ends: resolves once the whole body has been read and checked,
   * rejects with the iteration's error, or with a `RequestAbortedError` when the loop stopped
   * before the end of the list (the rest of the body, and its envelope, were never read).
   */
  get result(): Promise<SurveyStreamResult> {
    return this.#result;
  }

  /**
   * Starts the request and iterates the list.
   *
   * @throws TypeError when the stream is iterated a second time (call `stream()` again).
   */
  [Symbol.asyncIterator](): AsyncIterator<StreamedSurvey, undefined, undefined> {
    if (this.#iterated)
      throw new TypeError(
        "a SurveyStream can be iterated only once; call sds.surveys.stream() again to read the list again",
      );
    this.#iterated = true;
    return this.#iterate();
  }

  async *#iterate(): AsyncGenerator<StreamedSurvey, undefined, undefined> {
    const generator = this.#open((request) => {
      this.#reject(
        new RequestAbortedError(
          `${request.method} ${request.path} was stopped by its consumer before the end of the list`,
          request,
        ),
      );
    });
    let surveys = 0;
    let invalid = 0;
    let finished = false;
    try {
      for (;;) {
        const step = await generator.next();
        if (step.done === true) {
          finished = true;
          this.#resolve({ envelope: step.value.data, response: step.value.response, surveys, invalid });
          return undefined;
        }
        for (const entry of step.value) {
          if (entry.invalid) invalid += 1;
          else surveys += 1;
          yield entry;
        }
      }
    } catch (error) {
      finished = true;
      this.#reject(error);
      throw error;
    } finally {
      // The consumer left the loop early: close the call (the body is cancelled, the slot given back).
      // `return` needs a value of the call's result type, which a closed call never produces.
      if (!finished) await generator.return(undefined as never);
    }
  }
}
