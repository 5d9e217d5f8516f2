import { describe, expect, it } from "vitest";
import { createStyles } from "./styles.ts";
import { visibleControls } from "./terminal-text.ts";

const plain = createStyles(false);
const coloured = createStyles(true);

describe("visibleControls", () => {
  it("writes escape sequences, backspaces, carriage returns, DEL and C1 controls as visible escapes", () => {
    expect(visibleControls("a\u001b[2Jb\bc\rd\u007fe\u009b31mf\u0000", plain)).toBe(
      "a\\x1b[2Jb\\x08c\\x0dd\\x7fe\\x9b31mf\\x00",
    );
  });

  it("keeps line feeds and tabs, and ordinary Unicode", () => {
    expect(visibleControls("one\ttwo\nthree 調査 é", plain)).toBe("one\ttwo\nthree 調査 é");
  });

  it("keeps sds's own styles when colouring, and only those", () => {
    const text = `${coloured.bold("Name")} ${coloured.green("ok")} \u001b[8mhidden\u001b[0m \u001b]8;;https://x\u001b\\`;
    expect(visibleControls(text, coloured)).toBe(
      "\u001b[1mName\u001b[22m \u001b[32mok\u001b[39m \\x1b[8mhidden\\x1b[0m \\x1b]8;;https://x\\x1b\\",
    );
    expect(visibleControls(coloured.bold("Name"), plain)).toBe("\\x1b[1mName\\x1b[22m");
  });

  it("changes nothing the second time", () => {
    const once = visibleControls("\u001b[2J\b\u009b", plain);
    expect(visibleControls(once, plain)).toBe(once);
  });
});
