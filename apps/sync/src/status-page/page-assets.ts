import { readFileSync } from "node:fs";

/** The status page's three files, as served. */
export interface PageAssets {
  readonly html: string;
  readonly script: string;
  readonly style: string;
}

/**
 * Reads the page's files from `browser/` beside this module. The build copies that folder to
 * `dist/browser/`, beside the bundled chunks, so the same relative URL holds from source (tests,
 * `--conditions=@sds/source`) and from the published `dist/main.js`. Read once at start-up: a
 * missing file stops the service there, not on the first visit.
 */
export function readPageAssets(): PageAssets {
  const read = (name: string) => readFileSync(new URL(`./browser/${name}`, import.meta.url), "utf8");
  return { html: read("index.html"), script: read("status.js"), style: read("status.css") };
}
