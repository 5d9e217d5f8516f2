import { RequestError } from "./request-error.ts";
import { defineHiddenProperty, type RequestContext } from "./sds-error.ts";

/** One validation problem: where (`path`), what (`message`) and its kind (`code`, zod's issue code). */
export interface ValidationIssue {
  /** Where, from the root of the body (`["Surveys", 4, "Cpi"]`); empty for the body itself. */
  readonly path: readonly PropertyKey[];
  /** What is wrong, in words. */
  readonly message: string;
  /** The kind of problem: zod's issue code (`invalid_type`, `unrecognized_keys`, …) or `invalid_json`. */
  readonly code: string;
}

/**
 * The request succeeded but its body does not match the schema of `@sds/schemas` (or was not
 * JSON). This is not an HTTP failure: `status` is the success status it came with. `issues`
 * says what did not match; `body` holds the body as received.
 *
 * @example
 * ```ts
 * try {
 *   await sds.surveys.list();
 * } catch (error) {
 *   if (error instanceof ResponseValidationError) {
 *     for (const issue of error.issues) console.warn(issue.path.join("."), issue.message);
 *   }
 * }
 * ```
 */
export class ResponseValidationError extends RequestError {
  override name = "ResponseValidationError" as const;
  /** The HTTP status the body came with. */
  readonly status: number;
  /** What did not match, each with its path inside the body. */
  readonly issues: readonly ValidationIssue[];
  /**
   * The body as received (parsed JSON, or the text when it was not JSON). Non-enumerable and
   * left out of `toJSON()` and `util.inspect()`: an account body holds `EncryptionKey`s.
   */
  declare readonly body: unknown;

  constructor(
    message: string,
    details: {
      readonly request: RequestContext;
      readonly status: number;
      readonly issues: readonly ValidationIssue[];
      readonly body: unknown;
    },
  ) {
    super(message, details.request);
    this.status = details.status;
    this.issues = details.issues;
    defineHiddenProperty(this, "body", details.body);
  }

  protected override details(): Record<string, unknown> {
    return { status: this.status, issues: this.issues };
  }
}

/**
 * A request was refused before it was sent: an update body that fails `UrlSettingsBody`, or
 * a path parameter that is not a valid id. Nothing went over the network.
 */
export class RequestValidationError extends RequestError {
  override name = "RequestValidationError" as const;
  /** What is wrong with the request, each with its path inside the body or parameters. */
  readonly issues: readonly ValidationIssue[];

  constructor(
    message: string,
    details: { readonly request: RequestContext; readonly issues: readonly ValidationIssue[] },
  ) {
    super(message, details.request);
    this.issues = details.issues;
  }

  protected override details(): Record<string, unknown> {
    return { issues: this.issues };
  }
}
