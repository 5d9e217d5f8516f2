import type { z } from "zod";
import type { QueryParameter } from "./query-params.ts";

/*
 * How `/openapi.json` describes one route: the vocabulary of the route rows (route-module.ts).
 * The error statuses sds-sync answers are listed once here, each with the errorReply body.
 */

const retryAfter = { "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "string" } } };

/** Every error status sds-sync answers, each with the errorReply body; under `components.responses`. */
export const errorResponses = {
  "400": { name: "BadRequest", description: "A parameter or the body is malformed (the message names it)." },
  "401": {
    name: "Unauthorized",
    description:
      "The route asks for a token (SYNC_API_TOKEN is set; for /metrics, SYNC_METRICS_TOKEN) and the request lacks `Authorization: Bearer` with one that opens it.",
    headers: { "WWW-Authenticate": { schema: { type: "string" } } },
  },
  "403": {
    name: "Forbidden",
    description:
      "Host or Origin not allowed (SYNC_ALLOWED_HOSTS, SYNC_ALLOWED_ORIGINS), a token whose scope does not cover the route (`insufficient_scope`: SYNC_ROUTER_TOKEN on an operator route), or a bad outcome signature.",
  },
  "404": { name: "NotFound", description: "No such item." },
  "405": {
    name: "MethodNotAllowed",
    description: "The path exists with another method.",
    headers: { Allow: { schema: { type: "string" } } },
  },
  "409": {
    name: "Conflict",
    description: "In conflict with the current state (not the leader; a token used by another entry).",
  },
  "410": {
    name: "Gone",
    description:
      "`feed_expired` (changes) or `outcomes_expired` (outcomes): the entries after `after` were pruned; go on as the message says.",
  },
  "413": {
    name: "PayloadTooLarge",
    description:
      "The body is larger than the route takes: 64 KiB, or 1 MiB for the batch routes (history import, reconciliation).",
  },
  "415": { name: "UnsupportedMediaType", description: "The body is not JSON." },
  "422": {
    name: "UnprocessableEntity",
    description:
      "The survey's URL cannot make an entry link (`unusable_survey_url`); the store refused the request's data (`store_refused_data`: nothing was recorded, and the same request fails the same way); an Idempotency-Key sent earlier with another body (`idempotency_key_reused`).",
  },
  "429": {
    name: "TooManyRequests",
    description:
      "Manual runs are spaced (SYNC_MANUAL_RUN_SPACING) and held while an upstream 429's Retry-After is pending.",
    headers: retryAfter,
  },
  "500": { name: "InternalError", description: "Unexpected; see the service log." },
  "503": {
    name: "Unavailable",
    description:
      "The store or the account settings cannot be read right now, the service is shutting down, or (long-polls) every waiting place of the feed is taken (SYNC_MAX_LONG_POLLS).",
    headers: retryAfter,
  },
} as const;

/** An error status of {@link errorResponses}. */
export type ErrorStatus = keyof typeof errorResponses;

/** A query, path or header parameter as the document describes it. */
export interface Parameter extends QueryParameter {
  readonly in: "query" | "path" | "header";
  readonly required?: boolean;
}

/** A successful answer: a JSON body by its schema's name (or any of several), or a non-JSON content type. */
export type SuccessDoc<SchemaName extends string> =
  SchemaName | readonly SchemaName[] | { readonly contentType: string } | { readonly description: string };

/** How the document describes one route. */
export interface RouteDoc<SchemaName extends string = string, BodyName extends string = string> {
  readonly summary: string;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: BodyName;
  readonly success: Readonly<Record<string, SuccessDoc<SchemaName>>>;
  /** Error answers, each with the errorReply body (`/readyz` lists its 503 under `success`: the Readiness body, or this one when the store fails). */
  readonly errors: readonly ErrorStatus[];
  /** A GET route's HEAD operation, when it does more than answer GET's status and headers without the body. */
  readonly head?: string;
}

/** A required path parameter. */
export const pathParameter = (name: string, description: string, schema: z.ZodType): Parameter => ({
  name,
  in: "path",
  required: true,
  description,
  schema,
});

/** Query parameters as the document lists them. */
export const inQuery = (parameters: readonly QueryParameter[]): Parameter[] =>
  parameters.map((parameter) => ({ ...parameter, in: "query" }));

/** The errors of every `/v1` route behind the token, besides its own. */
export const guarded = ["401", "403", "405", "500"] as const;

/** The body of every JSON error (respond.ts `errorReply`): `@sds/sync-client`'s, part of the contract. */
export { ErrorBody } from "@sds/sync-client";
