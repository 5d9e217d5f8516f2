import { SdsError } from "./sds-error.ts";

/**
 * `createClient()` was given (or found in the environment) an option it cannot work with:
 * no API key, no or a malformed base URL, a negative timeout, a path override that drops a
 * parameter. Thrown at construction, before any request.
 *
 * @example
 * ```ts
 * createClient({ baseUrl: "https://sds.example/api/v1" }); // no apiKey, no SDS_API_KEY
 * // ConfigurationError: Missing API key: pass `apiKey` to createClient() or set SDS_API_KEY.
 * ```
 */
export class ConfigurationError extends SdsError {
  override name = "ConfigurationError" as const;
  /** The option at fault, such as `"apiKey"` or `"paths.getSurveyStats"`. */
  readonly option: string;

  constructor(message: string, option: string) {
    super(message);
    this.option = option;
  }

  protected override details(): Record<string, unknown> {
    return { option: this.option };
  }
}
