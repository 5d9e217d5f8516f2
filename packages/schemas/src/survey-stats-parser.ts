import { describeValue, envelopeProblem, firstField, isRecord } from "./internal/body-reading.ts";

/** Whose traffic a figure of {@link ParsedSurveyStats} describes. */
export type SurveyStatsScope = "supplier" | "global" | "unknown";

/** A survey's statistics as the parser reads them; a figure the body lacks is absent. */
export interface ParsedSurveyStats {
  /** Completes per start, 0..1 (the body's `SystemConversion` is a percentage, 0..100). */
  readonly conversion?: number;
  /** Earnings per click (`EffectiveEPC`): conversion times CPI, in the survey's currency. */
  readonly effectiveEpc?: number;
  /** Length of interview of the completes, in minutes (`LengthOfInterview`). */
  readonly lengthOfInterview?: number;
  /**
   * `"supplier"`: the caller's own traffic; `"global"`: every supplier's; `"unknown"`: the body
   * gave the figures without a scope, or gave none.
   */
  readonly scope: SurveyStatsScope;
}

/** What {@link parseSurveyStats} returns: the figures, or why the body cannot be read. */
export type ParseSurveyStatsResult =
  { readonly ok: true; readonly stats: ParsedSurveyStats } | { readonly ok: false; readonly problem: string };

/** Where a scope's figures sit: `Supplier`/`Global` (nested) or Lucid's `SupplierStatistics`/`SurveyStatistics`. */
const scopeKeys: readonly (readonly [SurveyStatsScope, readonly string[]])[] = [
  ["supplier", ["Supplier", "SupplierStatistics", "SupplierStats"]],
  ["global", ["Global", "SurveyStatistics", "GlobalStatistics", "GlobalStats"]],
];
const statsKeys = ["Stats", "Statistics"] as const;

type Figures = Omit<ParsedSurveyStats, "scope">;

/**
 * Reads the body of Get Survey Stats (undocumented, so read leniently) into conversion,
 * effective EPC and length of interview. The figures are Lucid's `EffectiveEPC`,
 * `SystemConversion` (a percentage) and `LengthOfInterview`, found at the top level, under
 * `Stats`, or nested by scope (`Supplier`/`Global`, `SupplierStatistics`/`SurveyStatistics`, at
 * the top level or under `Stats`). The supplier's own figures win over the global ones; a scope
 * with none of the figures is passed over. A body with no figures at all is `ok` with none.
 * `null` counts as absent and a decimal string as its number; a negative figure, a conversion
 * over 100 %, or text that is no number is a problem, never guessed at.
 *
 * Pure: never throws, whatever `body` is.
 *
 * @example
 * ```ts
 * parseSurveyStats({ SupplierStatistics: { SystemConversion: 25, EffectiveEPC: 0.5 }, SurveyStatistics: { SystemConversion: 10 } });
 * // { ok: true, stats: { conversion: 0.25, effectiveEpc: 0.5, scope: "supplier" } }
 * ```
 */
export function parseSurveyStats(body: unknown): ParseSurveyStatsResult {
  if (!isRecord(body)) return problem(`the body is not a JSON object but ${describeValue(body)}`);
  const failed = envelopeProblem(body);
  if (failed) return problem(failed);

  const roots: { readonly path: string; readonly record: Record<string, unknown> }[] = [];
  const stats = firstField(body, statsKeys);
  if (stats && stats.value !== null) {
    if (!isRecord(stats.value)) return problem(`${stats.key}: expected an object, got ${describeValue(stats.value)}`);
    roots.push({ path: `${stats.key}.`, record: stats.value });
  }
  roots.push({ path: "", record: body });

  for (const [scope, keys] of scopeKeys) {
    for (const root of roots) {
      const container = firstField(root.record, keys);
      if (!container || container.value === null) continue;
      const where = `${root.path}${container.key}`;
      if (!isRecord(container.value))
        return problem(`${where}: expected an object, got ${describeValue(container.value)}`);
      const figures = readFigures(container.value, `${where}.`);
      if (typeof figures === "string") return problem(figures);
      if (Object.keys(figures).length > 0) return { ok: true, stats: { ...figures, scope } };
    }
  }
  for (const root of roots) {
    const figures = readFigures(root.record, root.path);
    if (typeof figures === "string") return problem(figures);
    if (Object.keys(figures).length > 0) return { ok: true, stats: { ...figures, scope: "unknown" } };
  }
  return { ok: true, stats: { scope: "unknown" } };
}

/** The figures of one object, or the problem with one of them. */
function readFigures(record: Record<string, unknown>, path: string): Figures | string {
  const figures: { conversion?: number; effectiveEpc?: number; lengthOfInterview?: number } = {};
  const conversion = readNumber(record, "SystemConversion", path);
  if (typeof conversion === "string") return conversion;
  if (conversion !== undefined) {
    if (conversion > 100)
      return `${path}SystemConversion: expected a percentage from 0 to 100, got ${String(conversion)}`;
    figures.conversion = conversion / 100;
  }
  const epc = readNumber(record, "EffectiveEPC", path);
  if (typeof epc === "string") return epc;
  if (epc !== undefined) figures.effectiveEpc = epc;
  const loi = readNumber(record, "LengthOfInterview", path);
  if (typeof loi === "string") return loi;
  if (loi !== undefined) figures.lengthOfInterview = loi;
  return figures;
}

const DECIMAL = /^\s*\d+(\.\d+)?\s*$/;

/** A non-negative figure: a finite number or a decimal string; `undefined` when absent or null; a problem text otherwise. */
function readNumber(record: Record<string, unknown>, key: string, path: string): number | undefined | string {
  const value = Object.hasOwn(record, key) ? record[key] : undefined;
  if (value === undefined || value === null) return undefined;
  const number =
    typeof value === "number" ? value : typeof value === "string" && DECIMAL.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(number) || number < 0)
    return `${path}${key}: expected a non-negative number, got ${describeValue(value)}`;
  return number;
}

function problem(text: string): { readonly ok: false; readonly problem: string } {
  return { ok: false, problem: text };
}
