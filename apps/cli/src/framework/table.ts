import stringWidth from "string-width";
import type { Styles } from "./styles.ts";
import { visibleControls } from "./terminal-text.ts";

/** How to lay out one column of a table. */
export interface TableColumn {
  readonly header: string;
  readonly align?: "left" | "right";
}

/** Options of {@link renderTable}. */
export interface TableOptions {
  readonly styles: Styles;
  /** Shrink the widest columns (with `…`) so that each line fits; no limit when undefined. */
  readonly maxWidth?: number | undefined;
}

/**
 * The table functions, as `Output.document` hands them to a command's text renderer. The table
 * module is loaded only when a table is drawn: measuring terminal columns (string-width) costs
 * tens of milliseconds at load, which JSON output and `sds help` must not pay.
 */
export interface TableRenderer {
  readonly renderTable: typeof renderTable;
  readonly renderKeyValues: typeof renderKeyValues;
}

const gap = "  ";
/** The narrowest a column's values are cut to (`Smart…`) before the table gives up fitting. */
const minimumColumnWidth = 6;
/** The narrowest a header is cut to over narrower values (`Lang…` over `3`). */
const minimumHeaderWidth = 4;
/**
 * How much cheaper a header's overhang (the part wider than every value under it) is to cut
 * than values: it goes once the value columns are down to this much more than the header.
 */
const headerOverhangDiscount = 6;

/**
 * Renders rows of already-formatted cells as an aligned text table with a bold header line.
 * Wide tables are fitted to `maxWidth` by cutting the widest columns, headers that overhang
 * their values first (see `fitWidths`). Control characters in cells (a marketplace's reason
 * holding `ESC[2J`) are printed as visible escapes, measured as printed; the styles of
 * `options.styles` stay.
 */
export function renderTable(
  columns: readonly TableColumn[],
  rows: readonly (readonly string[])[],
  options: TableOptions,
): string {
  const cells = rows.map((row) => columns.map((_, index) => cellText(row[index] ?? "", options.styles)));
  const contentWidths = columns.map((_, index) => Math.max(0, ...cells.map((row) => textWidth(row[index] ?? ""))));
  const headers = columns.map((column) => cellText(column.header, options.styles));
  const widths = headers.map((header, index) => Math.max(textWidth(header), contentWidths[index] ?? 0));
  if (options.maxWidth !== undefined) fitWidths(widths, contentWidths, options.maxWidth);
  const line = (values: readonly string[], style: (text: string) => string) =>
    values
      .map((value, index) => {
        const width = widths[index] ?? 0;
        const text = truncate(value, width);
        const padding = " ".repeat(Math.max(0, width - textWidth(text)));
        const aligned =
          columns[index]?.align === "right" ? padding + text : index === values.length - 1 ? text : text + padding;
        return style(aligned);
      })
      .join(gap)
      .trimEnd();
  const header = line(headers, (text) => options.styles.bold(text));
  return [header, ...cells.map((row) => line(row, (text) => text))].join("\n") + "\n";
}

/**
 * Narrows `widths` (in place) one column at a time until the table fits `maxWidth`, always
 * cutting the widest column, so that the widest ones even out instead of one being crushed.
 * A header that overhangs its values (`LengthOfInterview` over `15`) counts
 * {@link headerOverhangDiscount} wider than it is: headers give way before values do. Values
 * are cut down to {@link minimumColumnWidth}, headers to their values (at least
 * {@link minimumHeaderWidth}); below that the table is left wider than asked.
 */
function fitWidths(widths: number[], contentWidths: readonly number[], maxWidth: number): void {
  let excess = widths.reduce((sum, width) => sum + width, 0) + gap.length * Math.max(0, widths.length - 1) - maxWidth;
  while (excess > 0) {
    let widest: number | undefined;
    let widestScore = Number.NEGATIVE_INFINITY;
    widths.forEach((width, index) => {
      const overhangs = width > (contentWidths[index] ?? 0);
      if (width <= (overhangs ? minimumHeaderWidth : minimumColumnWidth)) return;
      const score = width + (overhangs ? headerOverhangDiscount : 0);
      if (score > widestScore) {
        widest = index;
        widestScore = score;
      }
    });
    if (widest === undefined) return;
    widths[widest] = (widths[widest] ?? 0) - 1;
    excess--;
  }
}

const graphemes = new Intl.Segmenter();

/**
 * The number of terminal columns `text` takes: East Asian wide and fullwidth characters
 * (`調査` takes 4) and emoji (`👩🏽‍💻` takes 2) count two, combining marks none (string-width).
 */
export function textWidth(text: string): number {
  return stringWidth(text);
}

/** `text` cut to at most `width` columns, ending in `…` when cut; never splits a character. */
function truncate(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  let kept = "";
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const segmentWidth = textWidth(segment);
    if (used + segmentWidth > width - 1) break;
    kept += segment;
    used += segmentWidth;
  }
  return kept + "…";
}

/**
 * A cell as the table prints it: on one line (a line break as ` ⏎ `, a tab as a space), every
 * other control character visible. Done before measuring, so that columns align as printed.
 */
function cellText(text: string, styles: Styles): string {
  return visibleControls(text.replace(/\r?\n|\r/g, " ⏎ ").replaceAll("\t", " "), styles);
}

/**
 * Renders label/value pairs as aligned lines (`Name    Acme Panel`), for one record on a
 * terminal. Labels are dimmed; control characters are printed as visible escapes.
 */
export function renderKeyValues(pairs: readonly (readonly [string, string])[], styles: Styles, indent = ""): string {
  const shown = pairs.map(
    ([label, value]) => [visibleControls(label, styles), visibleControls(value, styles)] as const,
  );
  const width = Math.max(0, ...shown.map(([label]) => textWidth(label)));
  return (
    shown
      .map(([label, value]) => `${indent}${styles.dim(label + " ".repeat(width - textWidth(label)))}  ${value}`)
      .join("\n") + "\n"
  );
}
