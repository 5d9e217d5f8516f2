import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commandCatalog } from "../src/commands/registry.ts";

const commandEntries = commandCatalog.entries;
import { createTestHome, runSds, type TestHome } from "./support/run-sds.ts";
import { itWithShell } from "./support/shells.ts";

let home: TestHome;
beforeEach(() => {
  home = createTestHome();
});
afterEach(() => {
  home.remove();
});

/** What bash offers after typing `line` (the last word is the one being completed), with the script `sds` printed. */
function bashCompletions(script: string, words: readonly string[]): string[] {
  const program = `
${script}
COMP_WORDS=(${words.map((word) => `'${word}'`).join(" ")})
COMP_CWORD=${words.length - 1}
COMPREPLY=()
_sds_completion
printf '%s\\n' "\${COMPREPLY[@]}"
`;
  const result = spawnSync("bash", ["--norc", "--noprofile", "-c", program], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(result.stderr);
  return result.stdout.split("\n").filter((line) => line !== "");
}

const zshDriver = fileURLToPath(new URL("support/zsh-complete.zsh", import.meta.url));

/** Writes the script `sds completion SHELL` prints into the test's home, and returns its path. */
async function writeScript(shell: "zsh" | "fish"): Promise<string> {
  const result = await runSds(["completion", shell], home);
  expect(result.code).toBe(0);
  const path = join(home.path, `sds.${shell}`);
  writeFileSync(path, result.stdout);
  return path;
}

/** What zsh offered for one typed line, with the $PATH seen while each candidate was added. */
interface ZshCompletion {
  readonly candidates: string[];
  readonly paths: string[];
}

/**
 * What zsh's real completion system offers for each line (a TAB pressed at its end), run in a
 * pseudo-terminal by support/zsh-complete.zsh, one shell for all lines.
 */
function zshCompletions(script: string, lines: readonly string[]): Map<string, ZshCompletion> {
  const result = spawnSync("zsh", ["-f", zshDriver, script, ...lines], {
    encoding: "utf8",
    timeout: 15_000,
    env: { PATH: process.env.PATH, HOME: home.path, TERM: "xterm" },
  });
  if (result.status !== 0)
    throw new Error(
      `zsh completion failed (${String(result.status ?? result.signal)}): ${result.stderr}\n${result.stdout}`,
    );
  const completions = new Map<string, ZshCompletion>();
  let current: ZshCompletion | undefined;
  for (const output of result.stdout.split("\n")) {
    if (output.startsWith("### ")) completions.set(output.slice(4), (current = { candidates: [], paths: [] }));
    else if (output.startsWith("PATH=")) current?.paths.push(output.slice("PATH=".length));
    else if (output !== "") current?.candidates.push(output);
  }
  return completions;
}

function fishQuote(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

describe("sds completion", () => {
  it("prints a bash script that completes commands, subcommands, options and their values", async () => {
    const result = await runSds(["completion", "bash"], home);
    expect(result.code).toBe(0);
    const script = result.stdout;
    expect(spawnSync("bash", ["-n"], { input: script }).status).toBe(0);

    expect(bashCompletions(script, ["sds", ""])).toEqual(
      expect.arrayContaining([
        "account",
        "surveys",
        "collections",
        "export",
        "doctor",
        "sandbox",
        "completion",
        "--base-url",
      ]),
    );
    expect(bashCompletions(script, ["sds", "ac"])).toEqual(["account"]);
    expect(bashCompletions(script, ["sds", "surveys", ""])).toEqual([
      "list",
      "show",
      "qualifications",
      "quotas",
      "stats",
      "groups",
      ...bashCompletions(script, ["sds", "surveys", "--"]),
    ]);
    expect(bashCompletions(script, ["sds", "surveys", "list", "--d"])).toEqual(["--device", "--debug"]);
    expect(bashCompletions(script, ["sds", "surveys", "list", "--device", ""])).toEqual([
      "desktop",
      "mobile",
      "tablet",
    ]);
    expect(bashCompletions(script, ["sds", "--profile", "x", "surveys", "list", "--so"])).toEqual(["--sort"]);
    expect(bashCompletions(script, ["sds", "-o", "n"])).toEqual(["ndjson"]);
    expect(bashCompletions(script, ["sds", "collections", "qualification-c"])).toEqual([
      "qualification-categories",
      "qualification-category-types",
    ]);
    expect(bashCompletions(script, ["sds", "surveys", "show", "42", "--"])).toContain("--no-resolve");
    expect(bashCompletions(script, ["sds", "surveys", "show", "42", "--"])).not.toContain("show");
    expect(bashCompletions(script, ["sds", "export", "--out", ""])).toEqual([]);
    expect(bashCompletions(script, ["sds", "completion", ""])).toEqual(expect.arrayContaining(["bash", "zsh", "fish"]));
  });

  itWithShell(
    "zsh",
    "prints a zsh script that zsh parses and whose completion offers commands, options and values, leaving $PATH alone",
    async () => {
      const script = await writeScript("zsh");
      expect(spawnSync("zsh", ["-n", script], { encoding: "utf8" })).toMatchObject({ status: 0, stderr: "" });

      const lines = [
        "sds ",
        "sds ac",
        "sds surveys ",
        "sds surveys list --d",
        "sds surveys list --device ",
        "sds -o n",
        `sds export --out ${home.path}/`,
      ];
      const offered = zshCompletions(script, lines);
      const candidates = (line: string) => offered.get(line)?.candidates;
      expect(candidates("sds ")).toEqual(
        expect.arrayContaining([
          ...new Set(commandEntries.map((entry) => entry.path[0] as string)),
          "--base-url",
          "--output",
        ]),
      );
      expect(candidates("sds ac")).toEqual(["account"]);
      expect(candidates("sds surveys ")).toEqual(
        expect.arrayContaining(["list", "show", "qualifications", "quotas", "stats", "groups", "--debug"]),
      );
      expect(candidates("sds surveys list --d")?.sort()).toEqual(["--debug", "--device"]);
      expect(candidates("sds surveys list --device ")).toEqual(["desktop", "mobile", "tablet"]);
      expect(candidates("sds -o n")).toEqual(["ndjson"]);
      expect(candidates(`sds export --out ${home.path}/`)).toContain("sds.zsh");
      // zsh ties `path` to $PATH: a completion function that used that name emptied it while it ran.
      for (const line of lines) expect(new Set(offered.get(line)?.paths), line).toEqual(new Set([process.env.PATH]));
    },
  );

  itWithShell(
    "fish",
    "prints a fish script that fish parses and whose completion offers commands, options and values",
    async () => {
      const script = await writeScript("fish");
      expect(spawnSync("fish", ["-n", script], { encoding: "utf8" })).toMatchObject({ status: 0, stderr: "" });
      const complete = (line: string) => {
        const result = spawnSync("fish", ["--no-config", "-c", `source ${script}; complete -C ${fishQuote(line)}`], {
          encoding: "utf8",
          env: { PATH: process.env.PATH, HOME: home.path },
        });
        if (result.status !== 0) throw new Error(result.stderr);
        return result.stdout
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => line.split("\t")[0] as string);
      };
      expect(complete("sds ")).toEqual(
        expect.arrayContaining([...new Set(commandEntries.map((entry) => entry.path[0] as string)), "--base-url"]),
      );
      expect(complete("sds ac")).toEqual(["account"]);
      expect(complete("sds surveys ")).toEqual(
        expect.arrayContaining(["list", "show", "qualifications", "quotas", "stats", "groups"]),
      );
      expect(complete("sds surveys list --device ")).toEqual(["desktop", "mobile", "tablet"]);
      expect(complete("sds collections qualification-c")).toEqual([
        "qualification-categories",
        "qualification-category-types",
      ]);
    },
  );
});
