import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commandCatalog } from "../src/commands/registry.ts";

const commandEntries = commandCatalog.entries;
import { createTestHome, runSds, runSdsOnTerminal, type TestHome } from "./support/run-sds.ts";
import packageJson from "../package.json" with { type: "json" };

let home: TestHome;
beforeEach(() => {
  home = createTestHome();
});
afterEach(() => {
  home.remove();
});

describe("sds --version and --help", () => {
  it("prints the package version with --version, -V and inside a command", async () => {
    for (const args of [["--version"], ["-V"], ["surveys", "list", "--version"]]) {
      const result = await runSds(args, home);
      expect(result).toMatchObject({ code: 0, stdout: `${packageJson.version}\n`, stderr: "" });
    }
  });

  it("lists every command, the global options, the configuration and every exit code", async () => {
    const result = await runSds(["--help"], home);
    expect(result.code).toBe(0);
    for (const entry of commandEntries) expect(result.stdout).toContain(`  ${entry.path.join(" ")} `);
    for (const option of [
      "--base-url URL",
      "--profile NAME",
      "--api-key-stdin",
      "--output FORMAT",
      "--[no-]color",
      "--debug",
      "--timeout SECONDS",
    ]) {
      expect(result.stdout).toContain(option);
    }
    for (const code of [
      "0    success",
      "1    API error",
      "2    usage error",
      "3    authentication failed",
      "4    not found",
      "5    network error or timeout",
      "6    the service's data failed validation",
    ]) {
      expect(result.stdout).toContain(code);
    }
    expect(result.stdout).toContain("SDS_API_KEY");
    expect(result.stdout).toContain("$XDG_CONFIG_HOME/sds");
  });

  it("prints the same overview with no arguments and with `sds help`", async () => {
    const [bare, help, long] = await Promise.all([runSds([], home), runSds(["help"], home), runSds(["--help"], home)]);
    expect(bare.stdout).toBe(long.stdout);
    expect(help.stdout).toBe(long.stdout);
  });

  it("has help with usage, options and an example for every command, by `help COMMAND` and `COMMAND --help`", async () => {
    for (const entry of commandEntries) {
      const name = entry.path.join(" ");
      const [viaHelp, viaFlag] = await Promise.all([
        runSds(["help", ...entry.path], home),
        runSds([...entry.path, "--help"], home),
      ]);
      expect(viaHelp.code, name).toBe(0);
      expect(viaHelp.stdout, name).toContain(`Usage: sds ${name}`);
      expect(viaHelp.stdout, name).toContain(`$ sds ${entry.path[0] ?? ""}`);
      expect(viaFlag.stdout, name).toBe(viaHelp.stdout);
    }
  }, 60_000);

  it("shows a group's commands for `sds surveys` and `sds help account`", async () => {
    const surveys = await runSds(["surveys"], home);
    expect(surveys.code).toBe(0);
    expect(surveys.stdout).toContain("surveys list");
    expect(surveys.stdout).toContain("surveys show");
    const account = await runSds(["help", "account"], home);
    expect(account.stdout).toContain("account set-s2s");
  });

  it("colours help on a terminal, and not with NO_COLOR or --no-color", async () => {
    const coloured = await runSdsOnTerminal(["--help"], home);
    expect(coloured.stdout).toContain("\u001b[1mUsage:");
    const noColor = await runSdsOnTerminal(["--help"], home, { env: { NO_COLOR: "1" } });
    expect(noColor.stdout).not.toContain("\u001b[");
    const flag = await runSdsOnTerminal(["--help", "--no-color"], home);
    expect(flag.stdout).not.toContain("\u001b[");
    const piped = await runSds(["--help"], home);
    expect(piped.stdout).not.toContain("\u001b[");
  });

  it("decides colour from the parsed command line: flags first, then NO_COLOR, then FORCE_COLOR, then the terminal", async () => {
    const red = "\u001b[31merror:";
    expect((await runSds(["surveys", "lst", "--color"], home, { env: { NO_COLOR: "1" } })).stderr).toContain(red);
    expect((await runSds(["surveys", "lst"], home, { env: { FORCE_COLOR: "1" } })).stderr).toContain(red);
    expect((await runSds(["surveys", "lst"], home, { env: { FORCE_COLOR: "1", NO_COLOR: "1" } })).stderr).not.toContain(
      "\u001b[",
    );
    expect((await runSdsOnTerminal(["surveys", "lst"], home, { env: { FORCE_COLOR: "0" } })).stdout).not.toContain(
      "\u001b[",
    );
    expect((await runSdsOnTerminal(["surveys", "list", "--limt", "3", "--no-color"], home)).stdout).toBe(
      "error: unknown option --limt for `sds surveys list`. Did you mean --limit?\n",
    );
    // After `--`, `--color` is an argument, not an option.
    const terminated = await runSds(["help", "--", "--color"], home);
    expect(terminated).toMatchObject({
      code: 2,
      stderr: 'error: no command "--color". Run `sds --help` for the list of commands.\n',
    });
  });
});

describe("usage errors exit 2 with one line that says what to do", () => {
  const cases: readonly { readonly args: readonly string[]; readonly message: RegExp }[] = [
    {
      args: ["surveys", "lst"],
      message: /^error: unknown command "surveys lst"\. Did you mean `sds surveys list`\?\n$/,
    },
    {
      args: ["acount", "show"],
      message: /^error: unknown command "acount show"\. Did you mean `sds account show`\?\n$/,
    },
    {
      args: ["frobnicate"],
      message: /^error: unknown command "frobnicate"\. Run `sds --help` for the list of commands\.\n$/,
    },
    {
      args: ["surveys", "list", "--limt", "3"],
      message: /^error: unknown option --limt for `sds surveys list`\. Did you mean --limit\?\n$/,
    },
    {
      args: ["surveys", "list", "--limit"],
      message: /^error: --limit needs a value \(N\)\. Run `sds help surveys list` for its options\.\n$/,
    },
    {
      args: ["surveys", "list", "--device", "phone"],
      message: /^error: --device must be one of desktop, mobile, tablet; got "phone"/,
    },
    {
      args: ["surveys", "list", "-o", "yaml"],
      message: /^error: --output must be one of table, json, ndjson, csv; got "yaml"/,
    },
    { args: ["surveys", "show"], message: /^error: `sds surveys show` needs SURVEY_ID/ },
    { args: ["surveys", "show", "1", "2"], message: /^error: unexpected argument "2" for `sds surveys show`/ },
    { args: ["surveys", "show", "abc"], message: /^error: SURVEY_ID must be a whole number, got "abc"/ },
    { args: ["completion", "powershell"], message: /^error: SHELL must be one of bash, zsh, fish; got "powershell"/ },
    {
      args: ["surveys", "list", "--timeout", "soon"],
      message: /^error: --timeout must be a positive number of seconds, got "soon"/,
    },
    { args: ["account", "show", "--no-reveal-secrets"], message: /^error: --no-reveal-secrets is not an option/ },
    { args: ["help", "nothing"], message: /^error: no command "nothing"/ },
  ];

  for (const { args, message } of cases) {
    it(`sds ${args.join(" ")}`, async () => {
      const result = await runSds(args, home, {
        env: { SDS_BASE_URL: "http://127.0.0.1:9/api/v1", SDS_API_KEY: "unused" },
      });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    });
  }

  it("says why there is no --api-key, never echoing the key, and points at --api-key-stdin and SDS_API_KEY", async () => {
    for (const args of [
      ["account", "show", "--api-key", "typed-secret-8c1d"],
      ["--api-key=typed-secret-8c1d", "surveys", "list"],
    ]) {
      const result = await runSds(args, home);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toBe(
        "error: sds takes no --api-key: a key on the command line ends up in shell history and in `ps`. Pipe it to --api-key-stdin (`pass show sds | sds … --api-key-stdin`), set SDS_API_KEY, or save it with `sds login`.\n",
      );
    }
    const link = await runSds(["link", "sign", "https://s.example/", "--key", "typed-secret-8c1d"], home);
    expect(link.code).toBe(2);
    expect(link.stderr).toMatch(
      /^error: `sds link sign` takes no --key: .*Pipe the EncryptionKey to --key-stdin, or set SDS_ENCRYPTION_KEY\.\n$/,
    );
    expect(link.stderr).not.toContain("typed-secret-8c1d");
  });

  it("takes -o surveys.csv for the file it is not: --out on export, a redirect elsewhere", async () => {
    const exported = await runSds(["export", "-o", "surveys.csv"], home);
    expect(exported.code).toBe(2);
    expect(exported.stderr).toBe(
      'error: --output must be one of table, json, ndjson, csv; got "surveys.csv". -o/--output is the format, not a file; to write to a file, use --out surveys.csv.\n',
    );
    const listed = await runSds(["surveys", "list", "-o", "out/surveys.json"], home);
    expect(listed.code).toBe(2);
    expect(listed.stderr).toMatch(
      /-o\/--output is the format, not a file; redirect to write one: `-o json > out\/surveys\.json`\.\n$/,
    );
  });

  it("exits 2 without a base URL and 3 without a key, saying how to set them", async () => {
    const noBaseUrl = await runSds(["account", "show"], home, { env: { SDS_API_KEY: "k" } });
    expect(noBaseUrl.code).toBe(2);
    expect(noBaseUrl.stderr).toBe(
      "error: no base URL configured. Pass --base-url, set SDS_BASE_URL, or run `sds login`.\n",
    );
    const noKey = await runSds(["account", "show"], home, { env: { SDS_BASE_URL: "http://127.0.0.1:9/api/v1" } });
    expect(noKey.code).toBe(3);
    expect(noKey.stderr).toBe(
      "error: no API key configured. Set SDS_API_KEY, pipe it to --api-key-stdin, or run `sds login`.\n",
    );
  });

  it("rejects a base URL that is not an http URL", async () => {
    const result = await runSds(["account", "show", "--base-url", "ftp://example.com/api/v1"], home, {
      env: { SDS_API_KEY: "k" },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^error: --base-url: Invalid base URL: "ftp:\/\/example\.com\/api\/v1" is not an http or https URL\./,
    );
  });
});
