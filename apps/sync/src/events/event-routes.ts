import { z } from "zod";
import { EventsStatus, WebhookResumed } from "@sds/sync-client";
import { errorReply, json } from "../http/respond.ts";
import { guarded, pathParameter } from "../http/route-doc.ts";
import { defineRoutes, type RouteModule } from "../http/route-module.ts";
import type { SinkFeedStatus } from "./events-monitor.ts";

/** What the events' routes act on. */
export interface EventRoutesContext {
  readonly webhooks: readonly string[];
  readonly isLeader: () => boolean;
  readonly refresh: () => Promise<readonly SinkFeedStatus[]>;
  /** Retries the endpoint's held events at once. */
  readonly resume: (webhook: string) => void;
}

/** `GET /v1/events` (where every sink stands) and `POST /v1/webhooks/{name}/resume`. */
export function eventRoutes(context: EventRoutesContext): RouteModule {
  return defineRoutes({
    schemas: { EventsStatus, WebhookResumed },
    routes: {
      eventsStatus: {
        method: "GET",
        path: "/v1/events",
        access: "operator",
        handler: async () =>
          json(200, { leader: context.isLeader(), sinks: [...(await context.refresh())] } satisfies EventsStatus),
        doc: {
          summary: "Events out: where each sink (NATS, each webhook) stands in each feed, its lag and last error",
          success: { "200": "EventsStatus" },
          errors: [...guarded, "503"],
        },
      },
      resumeWebhook: {
        method: "POST",
        path: "/v1/webhooks/{name}/resume",
        access: "operator",
        handler: (request) => {
          const name = request.params.name ?? "";
          if (!context.webhooks.includes(name))
            return Promise.resolve(
              errorReply(404, "not_found", `no webhook named ${JSON.stringify(name)} (SYNC_WEBHOOK_URLS)`),
            );
          if (!context.isLeader())
            return Promise.resolve(
              errorReply(409, "not_leader", "only the leader delivers events: ask the replica that leads"),
            );
          context.resume(name);
          return Promise.resolve(json(202, { webhook: name, resumed: true }));
        },
        doc: {
          summary: "Retry a webhook endpoint's held events now, from where delivery stopped (on the leader)",
          parameters: [pathParameter("name", "The endpoint's name in SYNC_WEBHOOK_URLS.", z.string())],
          success: { "202": "WebhookResumed" },
          errors: [...guarded, "404", "409"],
        },
      },
    },
  });
}
