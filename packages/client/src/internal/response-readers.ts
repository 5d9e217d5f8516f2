import type { ResponseInfo, WithResponse } from "../api-promise.ts";
import type { ValidationMode } from "../client-options.ts";
import { raceWithSignal } from "./abort.ts";
import { apiErrorOf, failureOf, notJson, schemaMismatch } from "./attempt-failures.ts";
import type { CallState, ListStreamCall, OperationCall, ResponseReader } from "./call-types.ts";
import { JsonScanError } from "./json-list-scanner.ts";
import { ListBodyReader, type RawListItem } from "./list-body-reader.ts";
import { findRequestId, parseBody, readEnvelopeError } from "./response-body.ts";

/*
 * The two ways an attempt reads a 2xx response; everything else about the attempt (slot, rate
 * limit, sending, error statuses, retries, hooks) is the transport's, the same for both.
 */

/**
 * Reads the body whole through ky (under the attempt timeout), then checks it: `hasError: true`
 * is an ApiError, a body that is not JSON is worth another attempt, and the schema is checked
 * once the attempt has given its slot back.
 */
export function wholeBodyReader<T>(call: OperationCall<T>): ResponseReader<never, WithResponse<T>> {
  // eslint-disable-next-line require-yield -- a reader that yields nothing: its result comes whole
  return async function* readWholeBody(response, pending, state) {
    let text: string;
    try {
      text = await raceWithSignal(pending.text(), state.scope.signal);
    } catch (error) {
      return failureOf(error, state);
    }
    const { status } = response;
    const parsed = parseBody(text);
    const body = parsed.json ? parsed.value : parsed.text;
    if (readEnvelopeError(body).hasError) return apiErrorOf(status, response.headers, body, state);
    if (!parsed.json) return notJson(parsed.reason, status, body, state);
    return {
      kind: "accepted",
      settle: () => {
        const outcome = call.parse(body, state.settings.validation);
        if (!outcome.success) {
          const hint =
            call.operation === "listSurveys"
              ? " (surveys.listItemwise() keeps the valid surveys and reports the others)"
              : "";
          throw schemaMismatch("a body", outcome.issues, status, body, state, hint);
        }
        return { data: outcome.data, response: responseInfo(response, state) };
      },
    };
  };
}

/**
 * Reads a JSON object holding one long list as it arrives, without ky (which buffers): yields
 * the elements each chunk completes, each checked by `call.parseItem`, and checks the other
 * fields at the end. The attempt timeout covers each wait for the next chunk. A body that says
 * `hasError: true` is an ApiError once read; one that is cut short or malformed is worth another
 * attempt while nothing has been yielded.
 */
export function listStreamReader<Item, Envelope>(
  call: ListStreamCall<Item, Envelope>,
): ResponseReader<Item, WithResponse<Envelope>> {
  const parseItems = (batch: readonly RawListItem[], mode: ValidationMode): Item[] =>
    batch.map((item) => call.parseItem(item, mode));
  return async function* readListStream(response, _pending, state) {
    const { scope, settings } = state;
    const reader = new ListBodyReader(response.body, {
      listKey: call.listKey,
      signal: scope.signal,
      idleTimeout: settings.timeout,
    });
    try {
      for (;;) {
        let batch;
        try {
          batch = await reader.read();
        } catch (error) {
          if (reader.hasError) break; // the body said it is an error; what follows does not matter
          if (error instanceof JsonScanError) return notJson(error.message, response.status, reader.fields, state);
          return failureOf(error, state);
        }
        if (batch === undefined) break;
        if (batch.length === 0) continue;
        state.yielded = true;
        yield parseItems(batch, settings.validation);
      }
      const { fields } = reader;
      if (reader.hasError) return apiErrorOf(response.status, response.headers, fields, state);
      const envelope = call.parseEnvelope(
        reader.listSeen ? { ...fields, [call.listKey]: [] } : fields,
        settings.validation,
      );
      if (!envelope.success)
        return {
          kind: "failed",
          error: schemaMismatch("an envelope", envelope.issues, response.status, fields, state),
          retryable: false,
        };
      const result = { data: envelope.data, response: responseInfo(response, state) };
      return { kind: "accepted", settle: () => result };
    } finally {
      reader.cancel();
    }
  };
}

/** The response info of a completed call. */
function responseInfo(response: Response, state: CallState): ResponseInfo {
  const { context } = state;
  const { status, headers } = response;
  return {
    status,
    headers,
    requestId: findRequestId(headers),
    durationMs: state.clock.now() - state.startedAt,
    attempts: context.attempts,
    operation: context.operation,
    method: context.method,
    url: context.url,
  };
}
