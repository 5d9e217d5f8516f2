import { Health, Readiness } from "@sds/sync-client";
import { json } from "../http/respond.ts";
import { defineRoutes, type RouteModule } from "../http/route-module.ts";
import type { SyncMetrics } from "../metrics/sync-metrics.ts";
import type { SyncStore } from "../inventory-store/store.ts";

/** Readiness fails once the last success is older than this many intervals. */
export const STALE_AFTER_INTERVALS = 3;

/** What the probes read. */
export interface ProbeContext {
  readonly store: Pick<SyncStore, "lastSuccessfulRun">;
  readonly metrics: Pick<SyncMetrics, "render" | "registry">;
  readonly intervalMs: number;
  /** True once shutdown began: readiness fails so load balancers drain this replica. */
  readonly isStopping: () => boolean;
  /** Conditions that leave the replica ready but that an operator should hear of (listed in `/readyz`'s body). */
  readonly warnings?: () => readonly string[];
}

/** The probes: liveness and readiness, open to orchestrators, and the Prometheus metrics (SYNC_METRICS_TOKEN once set). */
export function probeRoutes(context: ProbeContext): RouteModule {
  return defineRoutes({
    schemas: { Health, Readiness },
    routes: {
      healthz: {
        method: "GET",
        path: "/healthz",
        access: "open",
        handler: () => Promise.resolve(json(200, { status: "ok" } satisfies Health)),
        doc: { summary: "Liveness: the process is up", success: { "200": "Health" }, errors: ["405"] },
      },
      readyz: {
        method: "GET",
        path: "/readyz",
        access: "open",
        handler: () => readiness(context),
        doc: {
          summary: "Readiness: a cycle succeeded within three intervals (503 with the same body otherwise)",
          success: { "200": "Readiness", "503": ["Readiness", "ErrorBody"] },
          errors: ["405", "500"],
        },
      },
      metrics: {
        method: "GET",
        path: "/metrics",
        access: "metrics",
        handler: async () => ({
          status: 200,
          body: await context.metrics.render(),
          contentType: context.metrics.registry.contentType,
        }),
        doc: {
          summary:
            "Prometheus metrics (with SYNC_METRICS_TOKEN set, a bearer token: Prometheus' authorization setting)",
          success: { "200": { contentType: "text/plain" } },
          errors: ["401", "403", "405", "500"],
        },
      },
    },
  });
}

/** `GET /readyz`: a cycle succeeded (in the shared store) within the last three intervals. */
async function readiness(context: ProbeContext) {
  const report = await readinessReport(context);
  return json(report.ready ? 200 : 503, report);
}

/** The body of `GET /readyz` (200 when `ready`, else 503), also server-rendered into the status page. */
export async function readinessReport(context: ProbeContext): Promise<Readiness> {
  if (context.isStopping()) return { ready: false, reason: "shutting down" };
  const last = await context.store.lastSuccessfulRun();
  const warnings = context.warnings?.() ?? [];
  const said = warnings.length > 0 ? { warnings: [...warnings] } : {};
  if (!last) return { ready: false, reason: "no successful sync cycle yet", ...said };
  const ageSeconds = (Date.now() - last.finishedAt.getTime()) / 1000;
  const limitSeconds = (STALE_AFTER_INTERVALS * context.intervalMs) / 1000;
  // Held closures keep the replica ready (it serves the last good data, which is the point) but are said out loud.
  const body = {
    lastSuccessAt: last.finishedAt.toISOString(),
    ageSeconds: Math.round(ageSeconds),
    staleAfterSeconds: limitSeconds,
    closuresHeld: last.counts.closuresHeld ?? 0,
    ...said,
  };
  if (ageSeconds > limitSeconds)
    return { ready: false, reason: "stale: the last successful sync cycle is too old", ...body };
  return { ready: true, ...body };
}
