import type { OutputStream } from "./io.ts";

/** Text styles for one stream; each is the identity when colour is off. */
export interface Styles {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const sgr = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const identity = (text: string) => text;

/** Styles that emit ANSI escapes when `enabled`, and plain text otherwise. */
export function createStyles(enabled: boolean): Styles {
  if (!enabled) return { enabled, bold: identity, dim: identity, red: identity, green: identity, yellow: identity, cyan: identity };
  return { enabled, bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), cyan: sgr(36, 39) };
}

/**
 * Whether to colour what goes to `stream`: never with `--no-color`, a non-empty `NO_COLOR`
 * (no-color.org) or `TERM=dumb`; otherwise only on a terminal.
 *
 * @param colorFlag `false` for `--no-color`, `true` for `--color`, `undefined` when neither was given.
 */
export function shouldColor(stream: OutputStream, env: NodeJS.ProcessEnv, colorFlag: boolean | undefined): boolean {
  if (colorFlag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (colorFlag === true) return true;
  if (env.TERM === "dumb") return false;
  return stream.isTTY === true;
}

/** Removes ANSI escape sequences, to measure the printed width of styled text. */
export function stripStyles(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching the escape character is the point
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}
