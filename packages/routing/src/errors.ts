/** Every `name` an error of `@sds/routing` can carry. */
export type RoutingErrorName =
  "RoutingError" | "UnknownAlgorithmError" | "UnfilledPlaceholderError" | "UnsafeSurveyUrlError" | "WeakKeyError";

/**
 * The base of every error `@sds/routing` throws. No error of this package ever holds a signing
 * key: not in `message`, not in a field.
 *
 * @example
 * ```ts
 * try {
 *   signUrl(url, key, { algorithm: "SHA3" });
 * } catch (error) {
 *   if (isRoutingError(error)) console.error(error.message);
 * }
 * ```
 */
export class RoutingError extends Error {
  override name: RoutingErrorName = "RoutingError";
}

/** An algorithm name that no supported hash answers to (see {@link parseHashAlgorithm}). */
export class UnknownAlgorithmError extends RoutingError {
  override name = "UnknownAlgorithmError" as const;
  /** The name as given. */
  readonly algorithm: string;

  constructor(algorithm: string) {
    super(`unknown hash algorithm ${JSON.stringify(algorithm)}: expected SHA1, SHA256, SHA512 or MD5`);
    this.algorithm = algorithm;
  }
}

/** A survey URL still holds a `[#…#]` or `[%…%]` placeholder that the placeholder map does not fill. */
export class UnfilledPlaceholderError extends RoutingError {
  override name = "UnfilledPlaceholderError" as const;
  /** The placeholder names left in the URL, lowercased. */
  readonly placeholders: readonly string[];

  /**
   * @param placeholders The names, lowercased.
   * @param written The placeholders as the URL spells them (`[%RID%]`), for the message.
   */
  constructor(placeholders: readonly string[], written: readonly string[] = placeholders.map((name) => `[#${name}#]`)) {
    super(`the survey URL holds placeholders that nothing fills: ${written.join(", ")}`);
    this.placeholders = placeholders;
  }
}

/** Why a survey URL cannot become an entry link (see {@link entryLinkProblem}). */
export type UnsafeSurveyUrlReason = "unsupported-scheme" | "userinfo" | "malformed-url";

/**
 * A survey URL that must not become an entry link: not `http:` or `https:` (`javascript:`,
 * `data:` would run or show whatever the URL says), with user information before the host
 * (`https://user:password@host`, a classic disguise), or not a URL with a plain `host[:port]`.
 * The message never repeats the URL: user information may hold a password.
 */
export class UnsafeSurveyUrlError extends RoutingError {
  override name = "UnsafeSurveyUrlError" as const;
  /** What is wrong with it. */
  readonly reason: UnsafeSurveyUrlReason;

  constructor(reason: UnsafeSurveyUrlReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/**
 * Signing and verifying refuse an empty key. The message names the minimum, never the key.
 */
export class WeakKeyError extends RoutingError {
  override name = "WeakKeyError" as const;
  /** The shortest key accepted, in characters. */
  readonly minimumLength: number;

  constructor(minimumLength: number) {
    super(
      minimumLength <= 1
        ? "the signing key is empty; use the account's EncryptionKey"
        : `the signing key is shorter than ${minimumLength} characters; use the account's full EncryptionKey`,
    );
    this.minimumLength = minimumLength;
  }
}

const routingErrorNames: ReadonlySet<string> = new Set<RoutingErrorName>([
  "RoutingError",
  "UnknownAlgorithmError",
  "UnfilledPlaceholderError",
  "UnsafeSurveyUrlError",
  "WeakKeyError",
]);

/** Whether `value` is an error of this package, also across duplicated copies of it (checks `name`). */
export function isRoutingError(value: unknown): value is RoutingError {
  return value instanceof Error && routingErrorNames.has(value.name);
}
