import { describe, expect, it } from "vitest";
import { csvLine } from "./csv.ts";
import { createStyles } from "./styles.ts";
import { renderTable, textWidth } from "./table.ts";

const plain = createStyles(false);

describe("renderTable", () => {
  it("aligns columns, numbers to the right", () => {
    const table = renderTable([{ header: "Id", align: "right" }, { header: "Name" }], [["7", "Gender"], ["1234", "Age"]], { styles: plain });
    expect(table).toBe("  Id  Name\n   7  Gender\n1234  Age\n");
  });

  it("fits a wide table to the width by shortening the widest column", () => {
    const long = "A survey name that goes on and on and on";
    const table = renderTable([{ header: "Id" }, { header: "Name" }, { header: "Cpi" }], [["1", long, "2.50"]], { styles: plain, maxWidth: 30 });
    for (const line of table.trimEnd().split("\n")) expect(textWidth(line)).toBeLessThanOrEqual(30);
    expect(table).toMatch(/ A survey name[^\n]*… {2}2\.50\n/);
    expect(table).toContain("2.50");
  });

  it("keeps each record on one line", () => {
    expect(renderTable([{ header: "Note" }], [["two\nlines"]], { styles: plain })).toBe("Note\ntwo ⏎ lines\n");
  });

  it("counts an emoji with modifiers as one character", () => {
    expect(textWidth("👩🏽‍💻 ok")).toBe(4);
  });
});

describe("csvLine", () => {
  it("quotes fields with commas, quotes, line breaks and edge spaces, and ends in CRLF", () => {
    expect(csvLine(["plain", "a,b", 'say "hi"', "two\nlines", " padded", ""])).toBe('plain,"a,b","say ""hi""","two\nlines"," padded",\r\n');
  });
});
