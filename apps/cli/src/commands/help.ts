import { localGlobalOptions } from "../internal/global-options.ts";
import { defineCommand } from "../internal/command.ts";
import { UsageError } from "../internal/errors.ts";
import { renderCommandHelp, renderGroupHelp, renderMainHelp } from "../internal/help.ts";
import { cliVersion } from "../internal/version.ts";
import { commandGroups, findCommand } from "./registry.ts";

/** `sds help [COMMAND…]`: the help of a command, a group, or all of sds. */
export const command = defineCommand({
  description: "Shows the help of a command (its usage, options and examples), of a group of commands, or of sds itself.",
  arguments: [{ name: "COMMAND", description: "the command, such as `surveys list`", optional: true, variadic: true }],
  options: {},
  globalOptions: localGlobalOptions,
  examples: [
    { command: "help surveys list", description: "Options and examples of `sds surveys list`" },
    { command: "help account", description: "The account commands" },
  ],
  async run(context) {
    const words = context.positionals;
    const styles = context.output.styles;
    if (words.length === 0) return context.output.write(renderMainHelp(cliVersion, styles));
    const entry = findCommand(words);
    if (entry !== undefined) return context.output.write(renderCommandHelp(entry.path, await entry.load(), styles));
    if (words.length === 1 && (words[0] as string) in commandGroups) return context.output.write(renderGroupHelp(words[0] as string, styles));
    throw new UsageError(`no command "${words.join(" ")}"`, { hint: "Run `sds --help` for the list of commands." });
  },
});
