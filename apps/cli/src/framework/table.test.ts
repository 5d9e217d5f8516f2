import { describe, expect, it } from "vitest";
import { createStyles } from "./styles.ts";
import { renderKeyValues, renderTable } from "./table.ts";

const plain = createStyles(false);

describe("renderTable", () => {
  it("aligns columns, numbers to the right", () => {
    const table = renderTable(
      [{ header: "Id", align: "right" }, { header: "Name" }],
      [
        ["7", "Gender"],
        ["1234", "Age"],
      ],
      { styles: plain },
    );
    expect(table).toBe("  Id  Name\n   7  Gender\n1234  Age\n");
  });

  it("fits a wide table to the width by shortening the widest column", () => {
    const long = "A survey name that goes on and on and on";
    const table = renderTable([{ header: "Id" }, { header: "Name" }, { header: "Cpi" }], [["1", long, "2.50"]], {
      styles: plain,
      maxWidth: 30,
    });
    // 30 columns: Id (2), gap (2), Name cut to 20 with its ellipsis, gap (2), Cpi (4).
    expect(table).toBe("Id  Name                  Cpi\n1   A survey name that …  2.50\n");
  });

  it("keeps each record on one line", () => {
    expect(renderTable([{ header: "Note" }], [["two\nlines"]], { styles: plain })).toBe("Note\ntwo ⏎ lines\n");
  });

  it("pads East Asian wide text by the two columns each character takes", () => {
    // 調査アンケート is 7 characters and 14 columns; "Survey" is 6.
    const table = renderTable(
      [{ header: "Name" }, { header: "Id", align: "right" }],
      [
        ["調査アンケート", "1"],
        ["Survey", "22"],
      ],
      { styles: plain },
    );
    expect(table).toBe(["Name            Id", "調査アンケート   1", "Survey          22", ""].join("\n"));
  });

  it("counts an emoji, modifiers and joiners included, as two columns", () => {
    const table = renderTable(
      [{ header: "E" }, { header: "Name" }],
      [
        ["👩🏽‍💻", "coder"],
        ["ok", "plain"],
      ],
      { styles: plain },
    );
    expect(table).toBe(["E   Name", "👩🏽‍💻  coder", "ok  plain", ""].join("\n"));
  });

  it("cuts wide text at a character boundary, within the width", () => {
    const table = renderTable([{ header: "Id" }, { header: "Name" }], [["1", "調査アンケート調査アンケート"]], {
      styles: plain,
      maxWidth: 15,
    });
    // Name gets 11 columns: five wide characters (10) and the ellipsis (1).
    expect(table).toBe("Id  Name\n1   調査アンケ…\n");
  });

  it("prints a cell's escape sequences, OSC 8 links, backspaces and C1 controls visibly, aligned as printed", () => {
    // What `sds outcomes reconcile --dry-run` draws from a marketplace's reasons.
    const table = renderTable(
      [{ header: "TOKEN" }, { header: "REASON" }, { header: "N", align: "right" }],
      [
        ["t-1", "\u001b[2Jqc", "1"],
        ["t-2", "\u001b]8;;https://evil.example\u001b\\ok\u001b]8;;\u001b\\", "2"],
        ["t-3", "paid\b\b\b\bfree\u009b2J", "3"],
      ],
      { styles: plain },
    );
    expect(table).toBe(
      [
        "TOKEN  REASON                                            N",
        "t-1    \\x1b[2Jqc                                         1",
        "t-2    \\x1b]8;;https://evil.example\\x1b\\ok\\x1b]8;;\\x1b\\  2",
        "t-3    paid\\x08\\x08\\x08\\x08free\\x9b2J                    3",
        "",
      ].join("\n"),
    );
  });

  it("keeps its own bold header and a command's own colours in a cell", () => {
    const coloured = createStyles(true);
    expect(renderTable([{ header: "A" }], [[coloured.green("*") + "\u001b[5m"]], { styles: coloured })).toBe(
      "\u001b[1mA\u001b[22m\n\u001b[32m*\u001b[39m\\x1b[5m\n",
    );
  });
});

describe("renderKeyValues", () => {
  it("aligns values after labels of wide characters", () => {
    expect(
      renderKeyValues(
        [
          ["名前", "a"],
          ["Id", "b"],
        ],
        plain,
      ),
    ).toBe("名前  a\nId    b\n");
  });

  it("prints controls in labels and values visibly", () => {
    expect(renderKeyValues([["Name\u0007", "x\u001b[2J"]], plain)).toBe("Name\\x07  x\\x1b[2J\n");
  });
});
