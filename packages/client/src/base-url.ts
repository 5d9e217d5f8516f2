import { ConfigurationError } from "./errors/configuration-error.ts";

const example = "such as https://sds.example/api/v1";

/**
 * Checks a base URL of the service and returns it parsed: the one validator of the project,
 * used by `createClient()` and by the `sds` CLI alike.
 *
 * Refused: anything but an absolute `http:` or `https:` URL; a query or a fragment (paths are
 * appended to the base URL); credentials (`user:pass@`: a URL is printed in logs, traces and
 * errors, and the credentials with it); and dot segments (`.`, `..`, also written `%2e`), which
 * the URL parser resolves silently, so `http://host/api/v1/../../admin` would send the key
 * to `http://host/admin`.
 *
 * @throws ConfigurationError (option `baseUrl`) saying what is wrong; the message never quotes credentials.
 * @example
 * ```ts
 * parseBaseUrl("https://sds.example/api/v1/").href; // "https://sds.example/api/v1/"
 * parseBaseUrl("https://sds.example/api/v1/../admin"); // throws ConfigurationError
 * ```
 */
export function parseBaseUrl(value: string): URL {
  const trimmed = value.trim();
  if (trimmed === "") throw invalid(`the base URL is empty; expected an absolute http or https URL, ${example}`);
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    // What looks like `user:password@` is masked: this text is not a URL, but may still hold them.
    throw invalid(
      `${JSON.stringify(trimmed.replace(/\/\/[^/@]*@/, "//***@"))} is not an absolute URL; expected one ${example}`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    // Quoted without its credentials: they are exactly what must not reach a log.
    url.username = "";
    url.password = "";
    throw invalid(
      `${url.href} must not carry credentials (user:password@): they would leak into logs; the API key is sent as a header`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw invalid(`${JSON.stringify(trimmed)} is not an http or https URL`);
  if (url.search !== "" || url.hash !== "" || /[?#]/.test(trimmed))
    throw invalid(`${JSON.stringify(trimmed)} must not carry a query or a fragment`);
  if (hasDotSegment(trimmed))
    throw invalid(
      `${JSON.stringify(trimmed)} must not contain "." or ".." path segments (the parser would resolve them to another path)`,
    );
  return url;
}

function invalid(reason: string): ConfigurationError {
  return new ConfigurationError(`Invalid base URL: ${reason}.`, "baseUrl");
}

/**
 * Whether the path of `raw` (as typed, before the parser resolves it) has a `.` or `..` segment,
 * in any spelling the WHATWG URL parser treats as one: `%2e` for either dot, `\` as a separator
 * (http and https are special schemes), tabs and newlines removed.
 */
function hasDotSegment(raw: string): boolean {
  const cleaned = raw.replace(/[\t\n\r]/g, "");
  const path = cleaned.replace(/^[a-z][a-z\d+.-]*:[/\\]*[^/\\?#]*/i, "").replace(/[?#].*$/s, "");
  return path.split(/[/\\]/).some((segment) => {
    const dots = segment.replace(/%2e/gi, ".");
    return dots === "." || dots === "..";
  });
}
