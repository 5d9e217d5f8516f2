import { defineRoutes, type RouteModule } from "../http/route-module.ts";
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

/**
 * The status page (`GET /`) and its script and style sheet. It holds no data (it reads the JSON
 * API, with the token when one is configured), so it is served without a token, like the probes.
 */
export function statusPageRoutes(): RouteModule {
  const { html, script, style } = readPageAssets();
  const serve = (body: string, contentType: string) => () =>
    Promise.resolve({ status: 200, body, contentType, headers });
  return defineRoutes({
    schemas: {},
    routes: {
      statusPage: {
        method: "GET",
        path: "/",
        access: "open",
        handler: serve(html, "text/html; charset=utf-8"),
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
