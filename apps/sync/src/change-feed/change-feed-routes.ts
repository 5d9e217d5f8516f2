import { Change, ChangePage } from "@sds/sync-client";
import { feedQueryParameters, parseFeedQuery } from "../feed/feed-query.ts";
import { readFeed } from "../feed/feed-reader.ts";
import type { ChangeNotifier } from "../feed/change-notifier.ts";
import { errorReply, json } from "../http/respond.ts";
import { guarded, inQuery } from "../http/route-doc.ts";
import { defineRoutes, type RouteModule } from "../http/route-module.ts";
import type { SyncStore } from "../inventory-store/store.ts";

/** What the change feed reads. */
export interface ChangeFeedContext {
  readonly store: Pick<SyncStore, "listChanges" | "feedHorizon">;
  readonly notifier: ChangeNotifier;
}

/** `GET /v1/changes`: the change feed after a sequence number, long-polling with `wait`. */
export function changeFeedRoutes(context: ChangeFeedContext): RouteModule {
  const feed = {
    list: (after: number, limit: number) => context.store.listChanges(after, limit),
    horizon: () => context.store.feedHorizon(),
    notifier: context.notifier,
  };
  return defineRoutes({
    schemas: { Change, ChangePage },
    routes: {
      listChanges: {
        method: "GET",
        path: "/v1/changes",
        access: "operator",
        handler: async (request) => {
          const query = parseFeedQuery(request.url.searchParams);
          const read = await readFeed(feed, query, request.signal);
          if (read.kind === "expired") {
            return errorReply(
              410,
              "feed_expired",
              `changes after sequence ${query.after} are no longer kept: the feed now starts after sequence ${read.horizon} (older entries are pruned, see SYNC_RETENTION_SECONDS). ` +
                "Resync: list the surveys (GET /v1/surveys, every page; each answer's sequence field is the feed sequence it reflects), " +
                "then follow GET /v1/changes?after=<the sequence of the first page>.",
            );
          }
          const { entries: changes } = read;
          return json(200, {
            changes,
            next: changes.at(-1)?.sequence ?? query.after,
            hasMore: changes.length === query.limit,
          } satisfies ChangePage);
        },
        doc: {
          summary: "The change feed after a sequence number, long-polling with wait",
          parameters: inQuery(feedQueryParameters),
          success: { "200": "ChangePage" },
          errors: ["400", ...guarded, "410", "503"],
        },
      },
    },
  });
}
