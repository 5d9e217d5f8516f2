import { UsageError } from "./errors.ts";

/**
 * A number given to an option, checked.
 *
 * @throws UsageError naming the option when it is not a finite number in range.
 */
export function parseNumberOption(
  name: string,
  value: string,
  range: { readonly min?: number; readonly max?: number; readonly integer?: boolean } = {},
): number {
  const number = Number(value);
  const kind = range.integer === true ? "an integer" : "a number";
  if (value.trim() === "" || !Number.isFinite(number) || (range.integer === true && !Number.isInteger(number))) {
    throw new UsageError(`--${name} must be ${kind}, got "${value}"`);
  }
  if (range.min !== undefined && number < range.min)
    throw new UsageError(`--${name} must be at least ${range.min}, got ${value}`);
  if (range.max !== undefined && number > range.max)
    throw new UsageError(`--${name} must be at most ${range.max}, got ${value}`);
  return number;
}

/**
 * The ids given to a repeatable option, each occurrence possibly comma-separated
 * (`--language 3,4 --language 9`).
 *
 * @throws UsageError when one is not a positive integer.
 */
export function parseIdList(name: string, values: readonly string[]): number[] {
  return splitList(values).map((part) => parseNumberOption(name, part, { integer: true, min: 0 }));
}

/** The values of a repeatable option, comma-separated ones split, blanks dropped. */
export function splitList(values: readonly string[]): string[] {
  return values
    .flatMap((value) => value.split(","))
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

/**
 * A survey (or other) id given as an argument.
 *
 * @throws UsageError when it is not a non-negative integer.
 */
export function parseIdArgument(name: string, value: string): number {
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${name} must be a whole number, got "${value}"`);
  }
  return Number(value);
}
