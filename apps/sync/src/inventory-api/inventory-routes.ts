import { CollectionList, StoredSurvey, StoredSurveyDetail, SurveyPage } from "@sds/sync-client";
import { z } from "zod";
import { errorReply, json } from "../http/respond.ts";
import { guarded, inQuery, pathParameter } from "../http/route-doc.ts";
import { defineRoutes, type RouteModule, type RouteRequest } from "../http/route-module.ts";
import type { SyncStore } from "../inventory-store/store.ts";
import { SURVEY_ID_RANGE } from "../survey-index/survey-id.ts";
import type { PageCache } from "./page-cache.ts";
import { encodeCursor, parseSurveyId, parseSurveyQuery, surveyQueryParameters } from "./survey-query.ts";

/** What the inventory read API reads. */
export interface InventoryContext {
  readonly store: Pick<
    SyncStore,
    "latestSequence" | "lastSuccessfulRun" | "listSurveys" | "getSurvey" | "listCollections"
  >;
  /** Serialised pages of `GET /v1/surveys` for the current data version. */
  readonly pageCache: PageCache;
}

/** The inventory read API: stored surveys (a page, one) and the reference collections. */
export function inventoryRoutes(context: InventoryContext): RouteModule {
  return defineRoutes({
    schemas: { StoredSurvey, StoredSurveyDetail, SurveyPage, CollectionList },
    routes: {
      listSurveys: {
        method: "GET",
        path: "/v1/surveys",
        access: "operator",
        handler: (request) => listSurveys(context, request),
        doc: {
          summary: "Stored surveys, filtered and cursor-paginated (ETag / If-None-Match answers 304)",
          parameters: inQuery(surveyQueryParameters),
          success: {
            "200": "SurveyPage",
            "304": { description: "Not modified since the ETag given in If-None-Match." },
          },
          errors: ["400", ...guarded, "503"],
        },
      },
      getSurvey: {
        method: "GET",
        path: "/v1/surveys/{id}",
        access: "operator",
        handler: async (request) => {
          const id = parseSurveyId(request.params.id ?? "");
          const survey = await context.store.getSurvey(id);
          return survey ? json(200, survey) : errorReply(404, "not_found", `survey ${id} is not in the store`);
        },
        doc: {
          summary: "One stored survey with its qualifications and quotas",
          parameters: [pathParameter("id", "SurveyId.", z.int().min(SURVEY_ID_RANGE.min).max(SURVEY_ID_RANGE.max))],
          success: { "200": "StoredSurveyDetail" },
          errors: ["400", ...guarded, "404", "503"],
        },
      },
      listCollections: {
        method: "GET",
        path: "/v1/collections",
        access: "operator",
        handler: async () => json(200, { collections: await context.store.listCollections() }),
        doc: {
          summary: "The stored reference collections",
          success: { "200": "CollectionList" },
          errors: [...guarded, "503"],
        },
      },
    },
  });
}

/**
 * `GET /v1/surveys`: filtered, cursor-paginated surveys. `sequence` is the change feed's sequence
 * the page reflects at least (read before the page, so every change after it is still to come in
 * the feed): a consumer lists, then follows `/v1/changes?after=<sequence of the first page>`.
 */
async function listSurveys(context: InventoryContext, request: RouteRequest) {
  const query = parseSurveyQuery(request.url.searchParams);
  // The data version (see page-cache.ts), read before the page: the page is at least this recent.
  const [sequence, lastRun] = await Promise.all([context.store.latestSequence(), context.store.lastSuccessfulRun()]);
  const headers = request.incoming.headers;
  const reply = await context.pageCache.reply(
    {
      version: `${sequence}.${lastRun?.id ?? 0}`,
      query: request.url.search,
      ifNoneMatch: headers["if-none-match"],
      acceptEncoding: headers["accept-encoding"],
    },
    async () => {
      const page = await context.store.listSurveys(query);
      return {
        surveys: page.surveys,
        nextCursor: page.hasMore && page.lastId !== null ? encodeCursor(page.lastId) : null,
        sequence,
      };
    },
  );
  return { ...reply, headers: { ...reply.headers, "sds-sequence": String(sequence) } };
}
