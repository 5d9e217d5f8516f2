import { describe, expect, it } from "vitest";
import { checkPositionals, parseCommandArguments, splitCommandWords } from "./argv.ts";
import { createCommandCatalog } from "./command-catalog.ts";
import type { CommandEntry } from "./command.ts";

// A table of the shapes sds has (a group of commands, a command that is also a group, a
// top-level command); the framework is tested apart from the real table in commands/.
const entry = (...path: string[]): CommandEntry => ({
  path,
  summary: "",
  load: () => Promise.reject(new Error("not loaded in this test")),
});
const isCommandPrefix = createCommandCatalog({ account: "", surveys: "", collections: "" }, [
  entry("account", "show"),
  entry("surveys", "list"),
  entry("surveys", "show"),
  entry("collections"),
  entry("collections", "qualification"),
  entry("help"),
]).isPrefix;

describe("splitCommandWords", () => {
  it("takes words while they still name a command, leaving positionals and options", () => {
    expect(splitCommandWords(["surveys", "show", "42", "-o", "json"], isCommandPrefix)).toEqual({
      words: ["surveys", "show"],
      rest: ["42", "-o", "json"],
    });
    expect(splitCommandWords(["collections", "languages"], isCommandPrefix)).toEqual({
      words: ["collections"],
      rest: ["languages"],
    });
    expect(splitCommandWords(["collections", "qualification", "3", "43"], isCommandPrefix)).toEqual({
      words: ["collections", "qualification"],
      rest: ["3", "43"],
    });
  });

  it("skips the values of global options before the command", () => {
    expect(splitCommandWords(["--profile", "surveys", "--debug", "account", "show"], isCommandPrefix)).toEqual({
      words: ["account", "show"],
      rest: ["--profile", "surveys", "--debug"],
    });
    expect(splitCommandWords(["-o", "csv", "surveys", "list"], isCommandPrefix)).toEqual({
      words: ["surveys", "list"],
      rest: ["-o", "csv"],
    });
  });

  it("passes everything after -- through as positionals", () => {
    expect(splitCommandWords(["help", "--", "--weird"], isCommandPrefix)).toEqual({
      words: ["help"],
      rest: ["--", "--weird"],
    });
  });
});

describe("parseCommandArguments", () => {
  const options = {
    limit: { type: "string", description: "", valueName: "N" },
    device: { type: "string", multiple: true, choices: ["desktop", "mobile"], description: "" },
    color: { type: "boolean", negatable: true, description: "" },
  } as const;

  it("parses values, repeated options and negations", () => {
    expect(
      parseCommandArguments(
        ["--limit", "3", "--device", "mobile", "--device=desktop", "--no-color", "x"],
        options,
        "t",
      ),
    ).toEqual({
      values: { limit: "3", device: ["mobile", "desktop"], color: false },
      positionals: ["x"],
      problem: undefined,
    });
  });

  it("reports the first problem as a usage error that names the command, keeping the well-formed values", () => {
    const problem = (args: string[]) => parseCommandArguments(args, options, "surveys list").problem;
    expect(problem(["--limt"])).toMatchObject({
      name: "UsageError",
      message: "unknown option --limt for `sds surveys list`",
      hint: "Did you mean --limit?",
    });
    expect(problem(["--limit"])?.message).toBe("--limit needs a value (N)");
    expect(problem(["--limit", "--no-color"])?.message).toBe("--limit needs a value (N)");
    expect(problem(["--color=yes"])?.message).toBe("--color takes no value");
    expect(problem(["--no-limit"])?.message).toBe("--no-limit is not an option");
    expect(problem(["--device", "phone"])?.message).toBe('--device must be one of desktop, mobile; got "phone"');
    expect(parseCommandArguments(["--no-color", "--bogus"], options, "t").values).toEqual({ color: false });
  });

  it("takes everything after -- as positionals", () => {
    expect(parseCommandArguments(["--", "--no-color"], options, "t")).toEqual({
      values: {},
      positionals: ["--no-color"],
      problem: undefined,
    });
  });
});

describe("checkPositionals", () => {
  const specs = [
    { name: "LANGUAGE_ID", description: "the language" },
    { name: "QUALIFICATION_ID", description: "the question" },
  ];

  it("names the first missing argument and the first extra one", () => {
    expect(() => {
      checkPositionals(["3"], specs, "collections qualification");
    }).toThrow("`sds collections qualification` needs QUALIFICATION_ID (the question)");
    expect(() => {
      checkPositionals(["3", "4", "5"], specs, "c");
    }).toThrow('unexpected argument "5" for `sds c`');
    expect(() => {
      checkPositionals(["3", "4"], specs, "c");
    }).not.toThrow();
  });
});
