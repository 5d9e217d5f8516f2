import type { Handler } from "../http/routes.ts";
import { statusHtml } from "./page-html.ts";
import { statusJs } from "./page-script.ts";
import { statusCss } from "./page-style.ts";

/**
 * Everything from this origin, nothing inline: the page's script and style are served beside it,
 * so the policy can forbid inline code, other origins, framing and form posts.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const headers = { "content-security-policy": CONTENT_SECURITY_POLICY, "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" };

/**
 * `GET /`: the status page. It holds no data (it reads the JSON API, with the token when one is
 * configured), so it is served without a token, like the probes.
 */
export const statusPage: Handler = () => Promise.resolve({ status: 200, body: statusHtml, contentType: "text/html; charset=utf-8", headers });

/** `GET /status.js`: the status page's script. */
export const statusScript: Handler = () => Promise.resolve({ status: 200, body: statusJs, contentType: "text/javascript; charset=utf-8", headers });

/** `GET /status.css`: the status page's stylesheet. */
export const statusStyle: Handler = () => Promise.resolve({ status: 200, body: statusCss, contentType: "text/css; charset=utf-8", headers });
