import type { OperationId } from "@sds/schemas";

/** The request an error belongs to: which operation, sent how and where. */
export interface RequestContext {
  /** The operation id from `@sds/schemas`, such as `"listSurveys"`. */
  readonly operation: OperationId;
  /** The HTTP method. */
  readonly method: "GET" | "PUT";
  /** The path relative to the base URL, placeholders filled in (`/survey-qualifications/42`). */
  readonly path: string;
  /** The full URL the request went to. */
  readonly url: string;
  /** How many attempts were made before giving up (0 when none was sent). */
  readonly attempts: number;
}

/** Options every error of the family accepts. */
export interface SdsErrorOptions {
  /** The underlying error, kept as the standard `cause`. */
  readonly cause?: unknown;
  /** The request the error belongs to; absent for errors raised before any request. */
  readonly request?: RequestContext | undefined;
}

/** Every `name` an error of `@sds/client` can carry. */
export type SdsErrorName =
  | "SdsError"
  | "ConfigurationError"
  | "RequestValidationError"
  | "ApiError"
  | "BadRequestError"
  | "AuthenticationError"
  | "PermissionDeniedError"
  | "NotFoundError"
  | "RateLimitError"
  | "ServerError"
  | "ConnectionError"
  | "TimeoutError"
  | "RequestAbortedError"
  | "ResponseValidationError";

/**
 * Marks errors of this package so the guards recognise them across duplicated copies of the
 * package (where `instanceof` fails). A registered symbol is the same in every copy.
 */
export const sdsErrorBrand: unique symbol = Symbol.for("@sds/client/error") as never;
const nodeInspect = Symbol.for("nodejs.util.inspect.custom");
const denoInspect = Symbol.for("Deno.customInspect");

type InspectFunction = (value: unknown, options?: unknown) => string;

/**
 * The base of every error `@sds/client` throws. Catch it to handle them all.
 *
 * Errors never hold the API key: not in `message`, `stack`, {@link SdsError.toJSON} or
 * `util.inspect()` output. Response bodies (which may hold an account's `EncryptionKey`) are
 * kept in non-enumerable properties and left out of both.
 *
 * @example
 * ```ts
 * try {
 *   await sds.surveys.list();
 * } catch (error) {
 *   if (isSdsError(error)) console.error(error.name, error.message);
 *   else throw error;
 * }
 * ```
 */
export class SdsError extends Error {
  /** The class of the error, also across copies of the package. */
  override name: SdsErrorName = "SdsError";
  /** The operation that failed, when the error belongs to a request. */
  readonly operation: OperationId | undefined;
  /** The HTTP method of that request. */
  readonly method: "GET" | "PUT" | undefined;
  /** The path of that request relative to the base URL. */
  readonly path: string | undefined;
  /** The full URL of that request. */
  readonly url: string | undefined;
  /** How many attempts were made (retries included). */
  readonly attempts: number | undefined;
  declare readonly [sdsErrorBrand]: true;

  constructor(message: string, options: SdsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.operation = options.request?.operation;
    this.method = options.request?.method;
    this.path = options.request?.path;
    this.url = options.request?.url;
    this.attempts = options.request?.attempts;
  }

  /**
   * A plain, secret-free description of the error for structured logs: name, message, the
   * request context and the fields of the subclass. Response bodies are left out.
   */
  toJSON(): Record<string, unknown> {
    const json: Record<string, unknown> = { name: this.name, message: this.message };
    if (this.operation !== undefined) {
      Object.assign(json, {
        operation: this.operation,
        method: this.method,
        path: this.path,
        url: this.url,
        attempts: this.attempts,
      });
    }
    Object.assign(json, this.details());
    if (this.cause instanceof Error) json["cause"] = { name: this.cause.name, message: this.cause.message };
    else if (typeof this.cause === "string") json["cause"] = this.cause;
    return json;
  }

  /** Fields of a subclass that belong in {@link SdsError.toJSON} and `util.inspect()`. */
  protected details(): Record<string, unknown> {
    return {};
  }

  /**
   * What `util.inspect()` and `console.log()` show in Node (and Bun): the stack, then the safe
   * fields of {@link SdsError.toJSON}. Without it Node would print every own property,
   * including `cause` objects this package does not control.
   */
  [nodeInspect](_depth: number, options: unknown, inspect?: InspectFunction): string {
    const { name: _name, message: _message, ...fields } = this.toJSON();
    const rendered = inspect ? inspect(fields, options) : JSON.stringify(fields);
    return `${this.stack ?? `${this.name}: ${this.message}`} ${rendered}`;
  }

  /** Deno's counterpart of the Node inspect hook. */
  [denoInspect](inspect?: InspectFunction, options?: unknown): string {
    return this[nodeInspect](0, options, inspect);
  }
}

// On the prototype, so it shows in no listing of the error's own properties.
Object.defineProperty(SdsError.prototype, sdsErrorBrand, { value: true, enumerable: false });

/** Defines a property that `Object.keys`, spread and `JSON.stringify` do not see. */
export function defineHiddenProperty(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: false, writable: false, configurable: false });
}
