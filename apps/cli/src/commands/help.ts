import { localGlobalOptions } from "../framework/global-options.ts";
import { defineCommand } from "../framework/command.ts";
import { UsageError } from "../framework/errors.ts";
import { renderCommandHelp, renderGroupHelp, renderMainHelp } from "../framework/help.ts";
import { cliVersion } from "../framework/version.ts";

/** `sds help [COMMAND…]`: the help of a command, a group, or all of sds. */
export const command = defineCommand({
  description:
    "Shows the help of a command (its usage, options and examples), of a group of commands, or of sds itself.",
  arguments: [{ name: "COMMAND", description: "the command, such as `surveys list`", optional: true, variadic: true }],
  options: {},
  globalOptions: localGlobalOptions,
  examples: [
    { command: "help surveys list", description: "Options and examples of `sds surveys list`" },
    { command: "help account", description: "The account commands" },
  ],
  async run(context) {
    const words = context.positionals;
    const { commands, output } = context;
    if (words.length === 0) return output.write(renderMainHelp(cliVersion, commands, output.styles));
    const entry = commands.find(words);
    if (entry !== undefined) return output.write(renderCommandHelp(entry.path, await entry.load(), output.styles));
    const [group] = words;
    if (words.length === 1 && group !== undefined && commands.groups.has(group))
      return output.write(renderGroupHelp(group, commands, output.styles));
    throw new UsageError(`no command "${words.join(" ")}"`, { hint: "Run `sds --help` for the list of commands." });
  },
});
