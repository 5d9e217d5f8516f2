import { defineRoutes, type RouteModule } from "../http/route-module.ts";
import type { Readiness, SyncStatus } from "@sds/sync-client";
import { renderFirstScreen } from "./first-screen.ts";
import { readPageAssets } from "./page-assets.ts";

/**
 * Everything from this origin, nothing inline: the page's script and style are served beside it,
 * so the policy can forbid inline code, other origins, framing and form posts.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const headers = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** What the page's first screen is rendered from. */
export interface StatusPageContext {
  /** `/readyz`'s body: open data. */
  readonly readiness: () => Promise<Readiness>;
  /** `/v1/sync/status`'s body, given only when the API needs no token (the page is open to all). */
  readonly status?: (() => Promise<SyncStatus>) | undefined;
}

/**
 * The status page (`GET /`) and its script and style sheet. Served without a token, like the
 * probes: its first screen is rendered from open data (readiness), and from the status only when
 * the API needs no token either; the script reads the rest with the token.
 */
export function statusPageRoutes(context: StatusPageContext): RouteModule {
  const { html, script, style } = readPageAssets();
  const serve = (body: string, contentType: string) => () =>
    Promise.resolve({ status: 200, body, contentType, headers });
  const page = async () => {
    const [readiness, status] = await Promise.all([context.readiness(), context.status?.()]);
    return {
      status: 200,
      body: renderFirstScreen(html, { readiness, status }),
      contentType: "text/html; charset=utf-8",
      headers,
    };
  };
  return defineRoutes({
    schemas: {},
    routes: {
      statusPage: {
        method: "GET",
        path: "/",
        access: "open",
        handler: page,
        doc: { summary: "The status page (HTML)", success: { "200": { contentType: "text/html" } }, errors: ["405"] },
      },
      statusScript: {
        method: "GET",
        path: "/status.js",
        access: "open",
        handler: serve(script, "text/javascript; charset=utf-8"),
        doc: {
          summary: "The status page's script",
          success: { "200": { contentType: "text/javascript" } },
          errors: ["405"],
        },
      },
      statusStyle: {
        method: "GET",
        path: "/status.css",
        access: "open",
        handler: serve(style, "text/css; charset=utf-8"),
        doc: {
          summary: "The status page's style sheet",
          success: { "200": { contentType: "text/css" } },
          errors: ["405"],
        },
      },
    },
  });
}
