import { describe, expect, it } from "vitest";
import { csvLine } from "./csv.ts";

const defused = { defuseFormulas: true };
const raw = { defuseFormulas: false };

describe("csvLine", () => {
  it("quotes fields with commas, quotes, line breaks and edge spaces, and ends in CRLF", () => {
    expect(csvLine(["plain", "a,b", 'say "hi"', "two\nlines", " padded", ""], defused)).toBe(
      'plain,"a,b","say ""hi""","two\nlines"," padded",\r\n',
    );
  });

  it("defuses cells a spreadsheet would run as formulas, with a leading quote", () => {
    const cells = ['=HYPERLINK("http://x","y")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\t=1", "\r=1"];
    expect(csvLine(cells, defused)).toBe(
      `"'=HYPERLINK(""http://x"",""y"")","'+1+cmd|' /C calc'!A0","'-2+3","'@SUM(A1:A9)","'\t=1","'\r=1"\r\n`,
    );
  });

  it("leaves numbers, and cells with a formula character further in, as they are", () => {
    expect(csvLine(["-5", "+1.5", "-0.25", "-1e3", "a=b", "x-1", "1-2"], defused)).toBe(
      "-5,+1.5,-0.25,-1e3,a=b,x-1,1-2\r\n",
    );
  });

  it("writes every cell as it is when defusing is off", () => {
    expect(csvLine(["=1+1", "@x", "-2+3"], raw)).toBe("=1+1,@x,-2+3\r\n");
  });
});
