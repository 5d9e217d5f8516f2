import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/*
 * The page's one script: the browser build of FingerprintJS (open source, MIT, v5), read from
 * its npm package once, then a few lines that compute the device hash and put it into every
 * hidden `fingerprint` field. The quality gate's `duplicate-device` rule compares that hash
 * across uids. `monitoring: false` stops the library's own usage ping, and the page's CSP
 * (`connect-src` falls back to `default-src 'none'`) would block any request it tried.
 *
 * Served from the page's own origin (`GET /s/fingerprint.js`), not inline: the library is
 * about 37 KB minified, more than the whole budget of one step's HTML and CSS (30 KB), and the
 * pages stay usable without it (the field stays empty; the server ignores an empty one).
 */

const FILL_FIELDS = `
;(function () {
  var fields = document.querySelectorAll('input[name="fingerprint"]');
  if (fields.length === 0 || typeof FingerprintJS === "undefined") return;
  FingerprintJS.load({ monitoring: false })
    .then(function (agent) { return agent.get(); })
    .then(function (result) {
      for (var index = 0; index < fields.length; index++) fields[index].value = result.visitorId;
    })
    .catch(function () {});
})();
`;

let script: string | undefined;

/** The script's text: the library's minified build (with its licence header) and the lines that fill the fields. */
export function fingerprintScript(): string {
  if (script === undefined) {
    const require = createRequire(import.meta.url);
    const main = require.resolve("@fingerprintjs/fingerprintjs");
    const library = readFileSync(main.replace(/fp\.cjs\.js$/, "fp.min.js"), "utf8");
    script = `${library}\n${FILL_FIELDS}`;
  }
  return script;
}
