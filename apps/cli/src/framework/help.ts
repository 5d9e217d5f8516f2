import type { CommandCatalog, CommandDefinition, OptionSpec, OptionSpecs } from "./command.ts";
import { exitCodeDescriptions } from "./exit-codes.ts";
import { globalOptionSpecs, type GlobalOptionName } from "./global-options.ts";
import type { Styles } from "./styles.ts";

/** The help of `sds --help`: every command, the global options, configuration and exit codes. */
export function renderMainHelp(version: string, commands: CommandCatalog, styles: Styles): string {
  const commandRows = commands.entries.map((entry) => [entry.path.join(" "), entry.summary] as const);
  return [
    `sds ${version}: the command-line tool for the Supplier Data Service`,
    "",
    `${styles.bold("Usage:")} sds <command> [arguments] [options]`,
    "",
    styles.bold("Commands:"),
    columns(commandRows, "  "),
    "",
    styles.bold("Global options:"),
    renderOptions(globalOptionSpecs),
    "",
    styles.bold("Configuration:"),
    "  The base URL comes from --base-url, else SDS_BASE_URL, else the profile.",
    "  The API key comes from --api-key-stdin, else SDS_API_KEY, else the profile; it is never",
    "  taken as a flag value. `sds login` saves a profile under $XDG_CONFIG_HOME/sds",
    "  (default ~/.config/sds), readable by you only; --profile or SDS_PROFILE picks one.",
    "  sds-sync (`outcomes`, `respondents`): --sync-url or SDS_SYNC_URL; its token from",
    "  --sync-token-stdin, else SYNC_API_TOKEN.",
    "  Colour: --color or --no-color, else NO_COLOR (off), else FORCE_COLOR (on), else on a terminal.",
    "",
    styles.bold("Exit codes:"),
    columns(
      exitCodeDescriptions.map(([code, description]) => [String(code), description] as const),
      "  ",
    ),
    "",
    "Run `sds help <command>` for a command's options and examples.",
    "",
  ].join("\n");
}

/** The help of a group word, such as `sds surveys`: its commands. */
export function renderGroupHelp(group: string, commands: CommandCatalog, styles: Styles): string {
  const rows = commands.inGroup(group).map((entry) => [entry.path.join(" "), entry.summary] as const);
  return [
    `${commands.groups.get(group) ?? group}.`,
    "",
    `${styles.bold("Usage:")} sds ${group} <command> [arguments] [options]`,
    "",
    styles.bold("Commands:"),
    columns(rows, "  "),
    "",
    `Run \`sds help ${group} <command>\` for a command's options and examples.`,
    "",
  ].join("\n");
}

/** The help of one command: usage, description, arguments, options and examples. */
export function renderCommandHelp(path: readonly string[], command: CommandDefinition, styles: Styles): string {
  const name = path.join(" ");
  const argumentsUsage = (command.arguments ?? [])
    .map((argument) => {
      const name = argument.variadic === true ? `${argument.name}…` : argument.name;
      return argument.optional === true ? `[${name}]` : name;
    })
    .join(" ");
  const lines = [
    `${styles.bold("Usage:")} sds ${name}${argumentsUsage === "" ? "" : ` ${argumentsUsage}`} [options]`,
    "",
    wrap(command.description, 88),
    "",
  ];
  if (command.arguments !== undefined && command.arguments.length > 0) {
    lines.push(
      styles.bold("Arguments:"),
      columns(
        command.arguments.map((argument) => [argument.name, argument.description] as const),
        "  ",
      ),
      "",
    );
  }
  if (Object.keys(command.options).length > 0) lines.push(styles.bold("Options:"), renderOptions(command.options), "");
  const globals = command.globalOptions === undefined ? globalOptionSpecs : pickOptions(command.globalOptions);
  lines.push(styles.bold("Global options:"), renderOptions(globals), "");
  if (command.examples.length > 0) {
    lines.push(styles.bold("Examples:"));
    for (const example of command.examples)
      lines.push(`  ${styles.dim(`# ${example.description}`)}`, `  $ sds ${example.command}`);
    lines.push("");
  }
  return lines.join("\n");
}

function pickOptions(names: readonly GlobalOptionName[]): OptionSpecs {
  return Object.fromEntries(names.map((name) => [name, globalOptionSpecs[name]]));
}

/** Options as help lines: `-o, --output FORMAT   description`. */
export function renderOptions(options: OptionSpecs): string {
  const rows = Object.entries(options)
    .filter(([, spec]) => spec.hidden !== true)
    .map(([name, spec]) => [optionLabel(name, spec), spec.description] as const);
  return columns(rows, "  ");
}

function optionLabel(name: string, spec: OptionSpec): string {
  const short = spec.short === undefined ? "    " : `-${spec.short}, `;
  const long = spec.negatable === true ? `--[no-]${name}` : `--${name}`;
  const value = spec.type === "string" ? ` ${spec.valueName ?? "VALUE"}` : "";
  return `${short}${long}${value}${spec.multiple === true ? " …" : ""}`;
}

function columns(rows: readonly (readonly [string, string])[], indent: string): string {
  const width = Math.max(0, ...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}  ${right}`).join("\n");
}

/** Breaks a paragraph into lines of at most `width` characters, at spaces. */
function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines.join("\n");
}
