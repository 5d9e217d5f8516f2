import { toComponentSchemas } from "@sds/schemas";
import { z } from "zod";
import { EntryLinkBody, MatchBody } from "../loop/match-routes.ts";
import { outcomeKinds } from "../loop/store/loop-store.ts";
import { SURVEY_ID_RANGE } from "../survey-index/survey-id.ts";
import { VERSION } from "../common/version.ts";
import * as schemas from "./api-schemas.ts";
import { changesQueryParameters, surveyQueryParameters, type QueryParameter } from "./params.ts";

/*
 * `GET /openapi.json`: the OpenAPI 3.1 document of sds-sync's HTTP API, built at run time (and
 * committed nowhere) from the zod schemas of api-schemas.ts, the request-body schemas the loop's
 * routes parse with, and the query-parameter declarations beside the parsers in params.ts. The
 * route table of server.ts must have an entry here for every route (the compiler checks it), and
 * test/openapi.test.ts validates every route's real answers against the document.
 */

type ResponseSchema = keyof typeof responseSchemas;
type ErrorStatus = keyof typeof errorResponses;

/** How the document describes one route. */
export interface RouteDoc {
  readonly summary: string;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: keyof typeof requestSchemas;
  /** Successful answers: a JSON body by its schema's name, or a non-JSON content type. */
  readonly success: Readonly<Record<string, ResponseSchema | readonly ResponseSchema[] | { readonly contentType: string } | { readonly description: string }>>;
  /** Error answers, each with the errorReply body (`/readyz` lists its 503 under `success`: the Readiness body, or this one when the store fails). */
  readonly errors: readonly ErrorStatus[];
  /** A GET route's HEAD operation, when it does more than answer GET's status and headers without the body. */
  readonly head?: string;
}

interface Parameter extends QueryParameter {
  readonly in: "query" | "path";
  readonly required?: boolean;
}

/** The route table's view of a route (server.ts). */
export interface RouteShape {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly authenticated: boolean;
}

const responseSchemas = {
  ErrorBody: schemas.ErrorBody,
  Health: schemas.Health,
  Readiness: schemas.Readiness,
  StoredSurvey: schemas.StoredSurvey,
  StoredSurveyDetail: schemas.StoredSurveyDetail,
  SurveyPage: schemas.SurveyPage,
  Change: schemas.Change,
  ChangePage: schemas.ChangePage,
  CollectionList: schemas.CollectionList,
  SyncStatus: schemas.SyncStatus,
  CycleRun: schemas.CycleRun,
  RunAccepted: schemas.RunAccepted,
  ClosuresConfirmed: schemas.ClosuresConfirmed,
  MatchResult: schemas.MatchResult,
  EntryLink: schemas.EntryLink,
  Outcome: schemas.Outcome,
  OutcomePage: schemas.OutcomePage,
  OutcomeReceipt: schemas.OutcomeReceipt,
  OpenApiDocument: schemas.OpenApiDocument,
} as const satisfies Record<string, z.ZodType>;

const requestSchemas = { MatchBody, EntryLinkBody } as const satisfies Record<string, z.ZodType>;

const retryAfter = { "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "string" } } };

/** Every error status sds-sync answers, each with the errorReply body; under `components.responses`. */
const errorResponses = {
  "400": { name: "BadRequest", description: "A parameter or the body is malformed (the message names it)." },
  "401": { name: "Unauthorized", description: "SYNC_API_TOKEN is set and the request lacks `Authorization: Bearer <token>`.", headers: { "WWW-Authenticate": { schema: { type: "string" } } } },
  "403": { name: "Forbidden", description: "Host or Origin not allowed (SYNC_ALLOWED_HOSTS, SYNC_ALLOWED_ORIGINS), or a bad outcome signature." },
  "404": { name: "NotFound", description: "No such item." },
  "405": { name: "MethodNotAllowed", description: "The path exists with another method.", headers: { Allow: { schema: { type: "string" } } } },
  "409": { name: "Conflict", description: "In conflict with the current state (not the leader; a token used by another entry)." },
  "410": { name: "Gone", description: "`feed_expired` (changes) or `outcomes_expired` (outcomes): the entries after `after` were pruned; go on as the message says." },
  "413": { name: "PayloadTooLarge", description: "The body is larger than 64 KiB." },
  "415": { name: "UnsupportedMediaType", description: "The body is not JSON." },
  "422": { name: "UnprocessableEntity", description: "The survey's URL cannot make an entry link." },
  "429": { name: "TooManyRequests", description: "Manual runs are spaced (SYNC_MANUAL_RUN_SPACING) and held while an upstream 429's Retry-After is pending.", headers: retryAfter },
  "500": { name: "InternalError", description: "Unexpected; see the service log." },
  "503": { name: "Unavailable", description: "The store or the account settings cannot be read right now, the service is shutting down, or (long-polls) every waiting place of the feed is taken (SYNC_MAX_LONG_POLLS).", headers: retryAfter },
} as const;

const pathParameter = (name: string, description: string, schema: z.ZodType): Parameter => ({ name, in: "path", required: true, description, schema });
const inQuery = (parameters: readonly QueryParameter[]): Parameter[] => parameters.map((parameter) => ({ ...parameter, in: "query" }));

/** The errors of every `/v1` route behind the token, besides its own. */
const guarded = ["401", "403", "405", "500"] as const;

const outcomeReceiver = {
  summary: "The marketplace's server-to-server outcome call (signed, no bearer token)",
  parameters: [
    pathParameter("outcome", "The outcome.", z.enum(outcomeKinds)),
    { name: "vq_token", in: "query", required: true, description: "The transaction token (the name is SYNC_OUTCOMES_TOKEN_PARAM's).", schema: z.string().min(1) },
  ],
  success: { "200": "OutcomeReceipt" },
  errors: ["400", "403", "404", "405", "500", "503"],
  head: "Checks an outcome call (token, signature) as GET would, and records nothing: HEAD changes no state",
} as const satisfies RouteDoc;

/** Every route of server.ts, documented. */
export const routeDocs = {
  statusPage: { summary: "The status page (HTML)", success: { "200": { contentType: "text/html" } }, errors: ["405"] },
  statusScript: { summary: "The status page's script", success: { "200": { contentType: "text/javascript" } }, errors: ["405"] },
  statusStyle: { summary: "The status page's style sheet", success: { "200": { contentType: "text/css" } }, errors: ["405"] },
  openApi: { summary: "This document", success: { "200": "OpenApiDocument" }, errors: ["405"] },
  healthz: { summary: "Liveness: the process is up", success: { "200": "Health" }, errors: ["405"] },
  readyz: { summary: "Readiness: a cycle succeeded within three intervals (503 with the same body otherwise)", success: { "200": "Readiness", "503": ["Readiness", "ErrorBody"] }, errors: ["405", "500"] },
  metrics: { summary: "Prometheus metrics", success: { "200": { contentType: "text/plain" } }, errors: ["405", "500"] },
  listSurveys: {
    summary: "Stored surveys, filtered and cursor-paginated (ETag / If-None-Match answers 304)",
    parameters: inQuery(surveyQueryParameters),
    success: { "200": "SurveyPage", "304": { description: "Not modified since the ETag given in If-None-Match." } },
    errors: ["400", ...guarded, "503"],
  },
  getSurvey: {
    summary: "One stored survey with its qualifications and quotas",
    parameters: [pathParameter("id", "SurveyId.", z.int().min(SURVEY_ID_RANGE.min).max(SURVEY_ID_RANGE.max))],
    success: { "200": "StoredSurveyDetail" },
    errors: ["400", ...guarded, "404", "503"],
  },
  listChanges: { summary: "The change feed after a sequence number, long-polling with wait", parameters: inQuery(changesQueryParameters), success: { "200": "ChangePage" }, errors: ["400", ...guarded, "410", "503"] },
  listCollections: { summary: "The stored reference collections", success: { "200": "CollectionList" }, errors: [...guarded, "503"] },
  syncStatus: { summary: "This replica, store counts, recent cycles, collections, quarantine and the respondent loop", success: { "200": "SyncStatus" }, errors: [...guarded, "503"] },
  runSync: {
    summary: "Run a sync cycle now (502 with the run when it failed)",
    parameters: [{ name: "wait", in: "query", description: "false: only ask for a cycle (202).", schema: z.enum(["true", "false"]).default("true") }],
    success: { "200": "CycleRun", "202": "RunAccepted", "502": "CycleRun" },
    errors: ["400", ...guarded, "409", "429", "503"],
  },
  confirmClosures: { summary: "Confirm the closures the mass-closure guard holds (on the leader)", success: { "202": "ClosuresConfirmed" }, errors: [...guarded, "409"] },
  match: { summary: "The live surveys a respondent qualifies for, best first", requestBody: "MatchBody", success: { "200": "MatchResult" }, errors: ["400", ...guarded, "413", "415"] },
  issueEntryLink: {
    summary: "A respondent's entry link to a live survey (201 new, 200 repeat of the same token)",
    requestBody: "EntryLinkBody",
    success: { "200": "EntryLink", "201": "EntryLink" },
    errors: ["400", ...guarded, "404", "409", "413", "415", "422", "503"],
  },
  listOutcomes: { summary: "Recorded outcomes in order, long-polling with wait like the change feed", parameters: inQuery(changesQueryParameters), success: { "200": "OutcomePage" }, errors: ["400", ...guarded, "410", "503"] },
  receiveOutcome: outcomeReceiver,
  receiveOutcomeByPost: outcomeReceiver,
} as const satisfies Record<string, RouteDoc>;

const parameterSchema = (schema: z.ZodType): unknown => {
  const { $schema: _schema, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" });
  return rest;
};

function parameterObject(parameter: Parameter) {
  return {
    name: parameter.name,
    in: parameter.in,
    description: parameter.description,
    ...(parameter.required === true ? { required: true } : {}),
    ...(parameter.explode === false ? { style: "form", explode: false } : {}),
    schema: parameterSchema(parameter.schema),
  };
}

function responseObject(answer: RouteDoc["success"][string]) {
  const ref = (name: ResponseSchema) => ({ $ref: `#/components/schemas/${name}` });
  if (typeof answer === "string") return { description: answer, content: { "application/json": { schema: ref(answer) } } };
  if ("contentType" in answer) return { description: answer.contentType, content: { [answer.contentType]: {} } };
  if ("description" in answer) return { description: answer.description };
  return { description: answer.join(" or "), content: { "application/json": { schema: { anyOf: answer.map(ref) } } } };
}

/**
 * The HEAD operation of a GET route (the router answers HEAD wherever GET is): GET's statuses and
 * headers, no bodies.
 */
function headOperationObject(id: string, route: RouteShape, doc: RouteDoc) {
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(doc.success)) responses[status] = { description: responseObject(answer).description };
  for (const status of doc.errors) {
    const { description, ...rest } = errorResponses[status];
    responses[status] = { description, ...("headers" in rest ? { headers: rest.headers } : {}) };
  }
  return {
    ...operationObject(id, route, doc),
    operationId: `${id}Head`,
    summary: doc.head ?? `${doc.summary}: GET's status and headers, without the body`,
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
  };
}

function operationObject(id: string, route: RouteShape, doc: RouteDoc) {
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(doc.success)) responses[status] = responseObject(answer);
  for (const status of doc.errors) responses[status] = { $ref: `#/components/responses/${errorResponses[status].name}` };
  return {
    operationId: id,
    summary: doc.summary,
    security: route.authenticated ? [{ bearerToken: [] }] : [],
    ...(doc.parameters ? { parameters: doc.parameters.map(parameterObject) } : {}),
    ...(doc.requestBody ? { requestBody: { required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${doc.requestBody}` } } } } } : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/**
 * The OpenAPI 3.1 document of the routes given (server.ts's table), one operation per route,
 * and a HEAD operation beside every GET; `docs` must describe every one of them.
 */
export function buildSyncOpenApiDocument<Id extends string>(routes: Readonly<Record<Id, RouteShape>>, docs: Readonly<Record<NoInfer<Id>, RouteDoc>>): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [id, route] of Object.entries(routes) as [Id, RouteShape][]) {
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase()] = operationObject(id, route, docs[id]);
    if (route.method === "GET") item.head = headOperationObject(id, route, docs[id]);
  }
  const responses: Record<string, unknown> = {};
  for (const { name, description, ...rest } of Object.values(errorResponses)) {
    responses[name] = { description, ...rest, content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } } };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "sds-sync",
      version: VERSION,
      description: "The HTTP API of sds-sync, generated from its zod schemas. With SYNC_API_TOKEN set, the operations that list bearerToken need it.",
    },
    paths,
    components: {
      schemas: { ...toComponentSchemas(responseSchemas), ...toComponentSchemas(requestSchemas, { io: "input" }) },
      responses,
      securitySchemes: { bearerToken: { type: "http", scheme: "bearer", description: "SYNC_API_TOKEN" } },
    },
  };
}
