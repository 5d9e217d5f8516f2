import { describe, expect, it } from "vitest";
import { parseAnswers } from "./answers.ts";

describe("parseAnswers", () => {
  it("reads QUALIFICATION_ID=CODE[,CODE…] values and JSON objects, merging repeats in order", () => {
    expect(parseAnswers(["42=34", "43=1, 2", '{"43":["3"],"44":[5]}'])).toEqual({
      "42": ["34"],
      "43": ["1", "2", "3"],
      "44": ["5"],
    });
    expect(parseAnswers(["{}"])).toEqual({});
    expect(parseAnswers(["45="])).toEqual({ "45": [] });
  });

  it("keeps an id such as constructor or __proto__ a plain key", () => {
    expect(Object.keys(parseAnswers(['{"__proto__":["1"]}']))).toEqual(["__proto__"]);
  });

  it("refuses what is neither form, naming the value", () => {
    expect(() => parseAnswers(["age=34"])).toThrow('--answers: "age=34" is not QUALIFICATION_ID=CODE');
    expect(() => parseAnswers(["{nope"])).toThrow("--answers: not JSON");
    expect(() => parseAnswers(["[1]"])).toThrow("is not QUALIFICATION_ID=CODE");
    expect(() => parseAnswers(['{"42":[{"a":1}]}'])).toThrow("the codes of 42 must be strings");
  });
});
