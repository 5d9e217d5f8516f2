/** Every `name` an error of `@sds/routing` can carry. */
export type RoutingErrorName = "RoutingError" | "UnknownAlgorithmError" | "UnfilledPlaceholderError";

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

/** A survey URL still holds a `[#…#]` placeholder that the placeholder map does not fill. */
export class UnfilledPlaceholderError extends RoutingError {
  override name = "UnfilledPlaceholderError" as const;
  /** The placeholder names left in the URL, lowercased. */
  readonly placeholders: readonly string[];

  constructor(placeholders: readonly string[]) {
    super(`the survey URL holds placeholders that nothing fills: ${placeholders.map((name) => `[#${name}#]`).join(", ")}`);
    this.placeholders = placeholders;
  }
}

const routingErrorNames: ReadonlySet<string> = new Set<RoutingErrorName>(["RoutingError", "UnknownAlgorithmError", "UnfilledPlaceholderError"]);

/** Whether `value` is an error of this package, also across duplicated copies of it (checks `name`). */
export function isRoutingError(value: unknown): value is RoutingError {
  return value instanceof Error && routingErrorNames.has(value.name);
}
