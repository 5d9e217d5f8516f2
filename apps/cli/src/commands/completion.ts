import { defineCommand, type CommandCatalog, type CommandDefinition, type OptionSpecs } from "../framework/command.ts";
import {
  completionShells,
  renderCompletionScript,
  type CompletionModel,
  type CompletionNode,
  type CompletionShell,
} from "../framework/completion-scripts.ts";
import { globalOptionSpecs, localGlobalOptions } from "../framework/global-options.ts";

/** `sds completion SHELL`: prints a completion script generated from the command table. */
export const command = defineCommand({
  description:
    "Prints a completion script for bash, zsh or fish, generated from sds's own command table, so it always matches this version. Completes commands, options and their values (output formats, devices, collection names, files).",
  arguments: [{ name: "SHELL", description: "bash, zsh or fish", choices: completionShells }],
  options: {},
  globalOptions: localGlobalOptions,
  examples: [
    { command: "completion bash > ~/.local/share/bash-completion/completions/sds", description: "Install for bash" },
    { command: 'completion zsh > "${fpath[1]}/_sds"', description: "Install for zsh (then restart the shell)" },
    { command: "completion fish > ~/.config/fish/completions/sds.fish", description: "Install for fish" },
  ],
  async run(context) {
    const model = await buildCompletionModel(context.commands);
    await context.output.write(renderCompletionScript(context.positionals[0] as CompletionShell, model));
  },
});

async function buildCompletionModel(commands: CommandCatalog): Promise<CompletionModel> {
  const commandEntries = commands.entries;
  const loaded = await Promise.all(commandEntries.map(async (entry) => ({ entry, definition: await entry.load() })));
  const optionFlags = (options: OptionSpecs) =>
    Object.entries(options)
      .filter(([, spec]) => spec.hidden !== true)
      .flatMap(([name, spec]) => (spec.negatable === true ? [`--${name}`, `--no-${name}`] : [`--${name}`]));
  const globalFlags = optionFlags(globalOptionSpecs);

  const nodes: CompletionNode[] = [
    {
      path: "",
      words: [...new Set(commandEntries.map((entry) => entry.path[0] as string))],
      options: globalFlags,
      isCommand: false,
    },
  ];
  for (const group of commands.groups.keys()) {
    if (loaded.some(({ entry }) => entry.path.length === 1 && entry.path[0] === group)) continue;
    const words = commandEntries
      .filter((entry) => entry.path[0] === group && entry.path.length === 2)
      .map((entry) => entry.path[1] as string);
    nodes.push({ path: group, words, options: globalFlags, isCommand: false });
  }
  for (const { entry, definition } of loaded) {
    const subcommands = commandEntries.filter(
      (other) =>
        other.path.length === entry.path.length + 1 && entry.path.every((word, index) => other.path[index] === word),
    );
    nodes.push({
      path: entry.path.join(" "),
      words: [
        ...subcommands.map((other) => other.path.at(-1) as string),
        ...firstArgumentChoices(definition, entry.path, commandEntries),
      ],
      options: [...optionFlags(definition.options), ...globalFlags],
      isCommand: true,
    });
  }

  const valueOptions = new Map<string, CompletionModel["valueOptions"][number]>();
  for (const options of [globalOptionSpecs as OptionSpecs, ...loaded.map(({ definition }) => definition.options)]) {
    for (const [name, spec] of Object.entries(options)) {
      if (spec.type !== "string" || valueOptions.has(name)) continue;
      const flags = spec.short === undefined ? [`--${name}`] : [`--${name}`, `-${spec.short}`];
      valueOptions.set(name, { flags, values: spec.isPath === true ? "file" : (spec.choices ?? []) });
    }
  }
  return { nodes, valueOptions: [...valueOptions.values()] };
}

function firstArgumentChoices(
  definition: CommandDefinition,
  path: readonly string[],
  commandEntries: CommandCatalog["entries"],
): readonly string[] {
  // `sds help` completes command words.
  if (path.length === 1 && path[0] === "help")
    return [...new Set(commandEntries.map((entry) => entry.path[0] as string))];
  const first = definition.arguments?.[0];
  return first?.choices ?? first?.suggestions ?? [];
}
