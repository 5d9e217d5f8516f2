import type { CliIo, OutputStream } from "./io.ts";

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

/**
 * The SGR codes {@link createStyles} emits (bold, dim, their reset; red, green, yellow, cyan,
 * their reset): the only escape sequences sds itself writes into text for people, which
 * `visibleControls` leaves alone.
 */
export const ownStyleCodes = [1, 2, 22, 31, 32, 33, 36, 39] as const;

/** Styles that emit ANSI escapes when `enabled`, and plain text otherwise. */
export function createStyles(enabled: boolean): Styles {
  if (!enabled)
    return { enabled, bold: identity, dim: identity, red: identity, green: identity, yellow: identity, cyan: identity };
  return {
    enabled,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
  };
}

/** The styles of both output streams, decided once per run and carried down in the context. */
export interface StreamStyles {
  readonly stdout: Styles;
  readonly stderr: Styles;
}

/**
 * Decides colour for stdout and stderr, the one place sds does so. First match wins:
 * `--color` / `--no-color`; a non-empty `NO_COLOR` (no-color.org) turns colour off;
 * `FORCE_COLOR` turns it on (off for `0` or `false`, as Node reads it); `TERM=dumb` turns it
 * off; otherwise a stream is coloured when it is a terminal. NO_COLOR is checked before
 * FORCE_COLOR so that a user who asked for no colour never gets any.
 *
 * @param colorFlag `false` for `--no-color`, `true` for `--color`, `undefined` when neither was given.
 */
export function decideStyles(
  io: Pick<CliIo, "stdout" | "stderr" | "env">,
  colorFlag: boolean | undefined,
): StreamStyles {
  return {
    stdout: createStyles(shouldColor(io.stdout, io.env, colorFlag)),
    stderr: createStyles(shouldColor(io.stderr, io.env, colorFlag)),
  };
}

function shouldColor(stream: OutputStream, env: NodeJS.ProcessEnv, colorFlag: boolean | undefined): boolean {
  if (colorFlag !== undefined) return colorFlag;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== "0" && env.FORCE_COLOR.toLowerCase() !== "false";
  if (env.TERM === "dumb") return false;
  return stream.isTTY === true;
}

/** Removes ANSI escape sequences, to measure the printed width of styled text. */
export function stripStyles(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching the escape character is the point
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}
