/*
 * Parsers for rows of the configuration table (config/config.ts, loop/loop-settings.ts). Each takes the trimmed, non-empty
 * value of one environment variable and returns the setting, or throws a SettingProblem whose
 * message follows the variable's name ("SYNC_INTERVAL: must be a number, got ...").
 */

/** What is wrong with one value; the loader adds the variable's name. Never put a secret in it. */
export class SettingProblem extends Error {
  override name = "SettingProblem" as const;
}

/** Bounds of {@link numberValue}. */
export interface NumberBounds {
  readonly min: number;
  readonly max: number;
  /** Whether decimals are refused. */
  readonly integer: boolean;
}

/** A non-negative decimal number within bounds (no sign, no exponent, no hex). */
export function numberValue(bounds: NumberBounds): (raw: string) => number {
  return (raw) => {
    const number = Number(raw);
    const kind = bounds.integer ? "an integer" : "a number";
    if (!/^\d+(\.\d+)?$/.test(raw) || !Number.isFinite(number) || (bounds.integer && !Number.isInteger(number))) {
      throw new SettingProblem(`must be ${kind}, got ${JSON.stringify(raw)}`);
    }
    if (number < bounds.min || number > bounds.max)
      throw new SettingProblem(`must be between ${bounds.min} and ${bounds.max}, got ${raw}`);
    return number;
  };
}

/** One of a fixed list of words; `shown` is echoed in the message. */
export function oneOf<const Word extends string>(words: readonly Word[], value: string, shown: string = value): Word {
  const known = words.find((word) => word === value);
  if (known === undefined) throw new SettingProblem(`must be one of ${words.join(", ")}, got ${JSON.stringify(shown)}`);
  return known;
}

/** `true`/`false` (also `1`/`0`, `yes`/`no`, any case). */
export function booleanValue(raw: string): boolean {
  const value = raw.toLowerCase();
  if (value === "true" || value === "1" || value === "yes") return true;
  if (value === "false" || value === "0" || value === "no") return false;
  throw new SettingProblem(`must be true or false, got ${JSON.stringify(raw)}`);
}

/** A comma list of whole numbers (ids), each at least 1. */
export function idList(raw: string): number[] {
  return raw.split(",").map((item) => {
    const text = item.trim();
    if (!/^\d{1,15}$/.test(text) || Number(text) < 1)
      throw new SettingProblem(`must be a comma list of ids, got ${JSON.stringify(item)}`);
    return Number(text);
  });
}

/** A comma list of words from a fixed list (each at most once). */
export function wordList<const Word extends string>(words: readonly Word[], raw: string): Word[] {
  return [...new Set(raw.split(",").map((item) => oneOf(words, item.trim().toLowerCase(), item.trim())))];
}

/** A comma list of browser origins (`scheme://host[:port]`), each as `URL.origin` writes it. */
export function originList(raw: string): string[] {
  return raw
    .split(",")
    .map((origin) => origin.trim())
    .filter((origin) => origin !== "")
    .map((origin) => {
      const url = URL.canParse(origin) ? new URL(origin) : undefined;
      if (
        !url ||
        (url.protocol !== "http:" && url.protocol !== "https:") ||
        url.origin !== origin.replace(/\/$/, "").toLowerCase()
      ) {
        throw new SettingProblem(
          `must be a comma list of origins such as https://panel.example.com (scheme, host, optional port; nothing else), got ${JSON.stringify(origin)}`,
        );
      }
      return url.origin;
    });
}

/**
 * A row of the configuration table that needs no other setting: what a feature outside the
 * configuration folder (the respondent loop) declares for its own settings; the table
 * (config/config.ts) checks each row against the full `Setting` type where it includes them.
 */
export interface PlainSetting<T> {
  readonly variable: string;
  readonly description: string;
  readonly parse: (raw: string) => T;
  readonly fallback: { readonly kind: "default"; readonly raw: string } | { readonly kind: "unset" };
  /** How the logged configuration shows the value (a Map would log as `{}`). @default the value */
  readonly describe?: (value: T | undefined) => unknown;
}
