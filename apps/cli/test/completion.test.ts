import { spawnSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commandCatalog } from "../src/commands/registry.ts";

const commandEntries = commandCatalog.entries;
import { createTestHome, runSds, sdsBinary, type TestHome } from "./support/run-sds.ts";

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

describe("sds completion", () => {
  it("prints a bash script that completes commands, subcommands, options and their values", async () => {
    const result = await runSds(["completion", "bash"], home);
    expect(result.code).toBe(0);
    const script = result.stdout;
    expect(spawnSync("bash", ["-n"], { input: script }).status).toBe(0);

    expect(bashCompletions(script, ["sds", ""])).toEqual(expect.arrayContaining(["account", "surveys", "collections", "export", "doctor", "sandbox", "completion", "--base-url"]));
    expect(bashCompletions(script, ["sds", "ac"])).toEqual(["account"]);
    expect(bashCompletions(script, ["sds", "surveys", ""])).toEqual(["list", "show", "qualifications", "quotas", "stats", "groups", ...bashCompletions(script, ["sds", "surveys", "--"])]);
    expect(bashCompletions(script, ["sds", "surveys", "list", "--d"])).toEqual(["--device", "--debug"]);
    expect(bashCompletions(script, ["sds", "surveys", "list", "--device", ""])).toEqual(["desktop", "mobile", "tablet"]);
    expect(bashCompletions(script, ["sds", "--profile", "x", "surveys", "list", "--so"])).toEqual(["--sort"]);
    expect(bashCompletions(script, ["sds", "-o", "n"])).toEqual(["ndjson"]);
    expect(bashCompletions(script, ["sds", "collections", "qualification-c"])).toEqual(["qualification-categories", "qualification-category-types"]);
    expect(bashCompletions(script, ["sds", "surveys", "show", "42", "--"])).toContain("--no-resolve");
    expect(bashCompletions(script, ["sds", "surveys", "show", "42", "--"])).not.toContain("show");
    expect(bashCompletions(script, ["sds", "export", "--out", ""])).toEqual([]);
    expect(bashCompletions(script, ["sds", "completion", ""])).toEqual(expect.arrayContaining(["bash", "zsh", "fish"]));
  });

  it("prints zsh and fish scripts that know every command", async () => {
    for (const shell of ["zsh", "fish"]) {
      const result = await runSds(["completion", shell], home);
      expect(result.code, shell).toBe(0);
      for (const entry of commandEntries) expect(result.stdout, `${shell}: ${entry.path.join(" ")}`).toContain(`'${entry.path.join(" ")}'`);
    }
    const zsh = (await runSds(["completion", "zsh"], home)).stdout;
    expect(zsh).toMatch(/^#compdef sds\n[\s\S]*compdef _sds sds\n$/);
    expect(zsh).toContain("--device)\n      compadd -- 'desktop' 'mobile' 'tablet'; return ;;");
    expect(zsh).toContain("--from-file)\n      _files; return ;;");
    const fish = (await runSds(["completion", "fish"], home)).stdout;
    expect(fish).toContain("complete -c sds -f -a '(__sds_candidates)'");
    expect(fish).toContain("complete -c sds -l device -x -a 'desktop mobile tablet'");
    expect(fish).toContain("complete -c sds -l out -r -F");
  });

  it("writes the script even when stdout is a terminal (no table formatting)", () => {
    const result = spawnSync("script", ["-qec", `${process.execPath} ${sdsBinary} completion bash`, "/dev/null"], { encoding: "utf8", env: { PATH: process.env.PATH, HOME: home.path } });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("complete -o default -F _sds_completion sds");
  });
});
