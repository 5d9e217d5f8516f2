import {
  EntryLink,
  EntryLinkBody,
  HistoryBody,
  HistoryImported,
  MatchBody,
  MatchResult,
  Outcome,
  outcomeKinds,
  OutcomePage,
  OutcomeReceipt,
  ReconcileBody,
  Reconciled,
} from "@sds/sync-client";
import { z } from "zod";
import { feedQueryParameters } from "../feed/feed-query.ts";
import { guarded, inQuery, pathParameter, type RouteDoc } from "../http/route-doc.ts";
import { defineRoutes, type RouteModule } from "../http/route-module.ts";
import type { LoopContext } from "./loop-context.ts";
import { issueEntryLink } from "./entry-link-routes.ts";
import { importHistory } from "./history-routes.ts";
import { match, type ProfileAccess } from "./match-routes.ts";
import { listOutcomes, receiveOutcome } from "./outcome-routes.ts";
import { reconcileIdempotencyKey, reconcileOutcomes } from "./reconcile-routes.ts";

const outcomeReceiver = {
  summary: "The marketplace's server-to-server outcome call (signed, no bearer token)",
  parameters: [
    pathParameter("outcome", "The outcome.", z.enum(outcomeKinds)),
    {
      name: "vq_token",
      in: "query",
      required: true,
      description: "The transaction token (the name is SYNC_OUTCOMES_TOKEN_PARAM's).",
      schema: z.string().min(1),
    },
  ],
  success: { "200": "OutcomeReceipt" },
  errors: ["400", "403", "404", "405", "500", "503"],
  head: "Checks an outcome call (token, signature) as GET would, and records nothing: HEAD changes no state",
} as const satisfies RouteDoc;

/**
 * The respondent loop's routes: matching, entry links, the outcome feed (private API) and the
 * S2S outcome receiver (the marketplace's; on its own listener when `SYNC_OUTCOMES_PORT` is set).
 */
export function loopRoutes(loop: LoopContext, profiles?: ProfileAccess): RouteModule {
  return defineRoutes({
    schemas: { MatchResult, EntryLink, Outcome, OutcomePage, OutcomeReceipt, HistoryImported, Reconciled },
    bodies: { MatchBody, EntryLinkBody, HistoryBody, ReconcileBody },
    routes: {
      match: {
        method: "POST",
        path: "/v1/match",
        access: "router",
        handler: (request) => match(loop, request, profiles),
        doc: {
          summary: "The live surveys a respondent qualifies for, best first",
          requestBody: "MatchBody",
          success: { "200": "MatchResult" },
          errors: ["400", ...guarded, "413", "415"],
        },
      },
      issueEntryLink: {
        method: "POST",
        path: "/v1/entry-links",
        access: "router",
        handler: (request) => issueEntryLink(loop, request),
        doc: {
          summary: "A respondent's entry link to a live survey (201 new, 200 repeat of the same token)",
          requestBody: "EntryLinkBody",
          success: { "200": "EntryLink", "201": "EntryLink" },
          errors: ["400", ...guarded, "404", "409", "410", "413", "415", "422", "503"],
        },
      },
      listOutcomes: {
        method: "GET",
        path: "/v1/outcomes",
        access: "operator",
        handler: (request) => listOutcomes(loop, request),
        doc: {
          summary: "Recorded outcomes in order, long-polling with wait like the change feed",
          parameters: inQuery(feedQueryParameters),
          success: { "200": "OutcomePage" },
          errors: ["400", ...guarded, "410", "503"],
        },
      },
      importHistory: {
        method: "POST",
        path: "/v1/respondents/history",
        access: "operator",
        handler: (request) => importHistory(loop, request),
        doc: {
          summary: "Bring in entries respondents made elsewhere, so routing knows them (idempotent)",
          requestBody: "HistoryBody",
          success: { "200": "HistoryImported" },
          errors: ["400", ...guarded, "413", "415", "503"],
        },
      },
      reconcileOutcomes: {
        method: "POST",
        path: "/v1/outcomes/reconcile",
        access: "operator",
        handler: (request) => reconcileOutcomes(loop, request),
        doc: {
          summary:
            "Record the marketplace's corrections (reversals) as transitions, with their reasons: all lines or none, once per Idempotency-Key",
          parameters: [reconcileIdempotencyKey],
          requestBody: "ReconcileBody",
          success: { "200": "Reconciled" },
          errors: ["400", ...guarded, "413", "415", "422", "503"],
        },
      },
      receiveOutcome: {
        method: "GET",
        path: "/v1/outcomes/{outcome}",
        access: "signature",
        listener: "outcomes",
        handler: (request) => receiveOutcome(loop, request),
        doc: outcomeReceiver,
      },
      receiveOutcomeByPost: {
        method: "POST",
        path: "/v1/outcomes/{outcome}",
        access: "signature",
        listener: "outcomes",
        handler: (request) => receiveOutcome(loop, request),
        doc: outcomeReceiver,
      },
    },
  });
}
