import { ownStyleCodes, type Styles } from "./styles.ts";

/**
 * The characters a terminal acts on instead of printing: C0 controls but tab and line feed
 * (ESC starts escape sequences, backspace and carriage return overwrite), DEL, and C1 controls
 * (U+009B is a one-character CSI on some terminals).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const terminalControl = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const ownStyleSequence = new RegExp(`(\\u001b\\[(?:${ownStyleCodes.join("|")})m)`);

/**
 * `text` with every control character a terminal would act on written as a visible escape
 * (`\x1b`, `\x08`, `\x9b`), so that text from elsewhere (a marketplace's reason, a survey's
 * name, a server's error) cannot clear the screen, hide a link behind other words (OSC 8) or
 * overwrite what was printed. Line feeds and tabs stay. When `styles` colour, the exact
 * sequences sds's own styles emit stay too: they cannot move the cursor, clear, link or write
 * the clipboard. The result holds no control character but those, so applying it again changes
 * nothing.
 *
 * @example
 * ```ts
 * visibleControls("late\u001b[2J", createStyles(false)); // "late\\x1b[2J"
 * ```
 */
export function visibleControls(text: string, styles: Pick<Styles, "enabled">): string {
  if (!styles.enabled) return escapeControls(text);
  // Split keeps the captured own sequences at the odd indexes.
  return text
    .split(ownStyleSequence)
    .map((part, index) => (index % 2 === 1 ? part : escapeControls(part)))
    .join("");
}

function escapeControls(text: string): string {
  return text.replace(terminalControl, (character) => `\\x${character.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
