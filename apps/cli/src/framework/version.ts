/** Replaced by the bundler with the version in package.json (see tsdown.config.ts). */
declare const __SDS_CLI_VERSION__: string | undefined;

/**
 * The version of `sds`. Inlined at build time; when the sources run unbundled (`node
 * --conditions=@sds/source src/main.ts`) it reads as `0.0.0-source`.
 */
export const cliVersion: string = typeof __SDS_CLI_VERSION__ === "string" ? __SDS_CLI_VERSION__ : "0.0.0-source";
