import { defineCommand } from "../framework/command.ts";
import { ConfigError } from "../framework/errors.ts";
import { ExitCode } from "../framework/exit-codes.ts";
import { profilesPath, readProfiles, selectProfile, writeProfiles } from "../connection/profiles.ts";

/** `sds logout`: deletes a saved profile (its base URL and key). */
export const command = defineCommand({
  description:
    "Deletes a profile saved by `sds login`: its base URL and API key are removed from the profiles file. Logging out of the default profile when it is not saved is not an error, so scripts can run `sds logout` unconditionally; a profile named with --profile or SDS_PROFILE must exist (exit 2 otherwise), as in every other command.",
  options: {
    all: { type: "boolean", description: "delete every saved profile" },
  },
  globalOptions: ["profile", "output", "json", "color", "debug", "help"],
  examples: [
    { command: "logout", description: "Forget the default profile" },
    { command: "logout --profile sandbox", description: "Forget the profile named sandbox" },
    { command: "logout --all", description: "Forget every profile" },
  ],
  async run(context) {
    const path = profilesPath(context.io.env);
    const file = await readProfiles(path);
    const selection = context.options.all === true ? undefined : selectProfile(context.globals.profile, context.io.env);
    if (selection?.namedExplicitly === true && !file.profiles.has(selection.name)) {
      throw new ConfigError(`no profile named "${selection.name}" in ${path}`, ExitCode.Usage, {
        hint: "`sds logout --all` forgets every profile.",
      });
    }
    const names = selection === undefined ? [...file.profiles.keys()] : [selection.name];
    const removed = names.filter((name) => file.profiles.has(name));
    if (removed.length > 0) {
      const remaining = new Map([...file.profiles].filter(([name]) => !removed.includes(name)));
      await writeProfiles(path, { version: 1, profiles: remaining });
    }
    if (context.output.format !== "table") {
      await context.output.document({ removed, profilesPath: path });
      return;
    }
    if (removed.length === 0)
      context.output.note(
        context.options.all === true
          ? "No profiles saved; nothing to do."
          : `No profile "${names[0] ?? ""}" saved; nothing to do.`,
      );
    else context.output.note(`Logged out: removed ${removed.map((name) => `"${name}"`).join(", ")} from ${path}.`);
  },
});
