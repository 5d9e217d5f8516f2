import { defineCommand } from "../internal/command.ts";
import { checkProfileName, defaultProfileName, profilesPath, readProfiles, writeProfiles } from "../internal/profiles.ts";

/** `sds logout`: deletes a saved profile (its base URL and key). */
export const command = defineCommand({
  description:
    "Deletes a profile saved by `sds login`: its base URL and API key are removed from the profiles file. Logging out of a profile that does not exist is not an error, so scripts can run it unconditionally.",
  options: {
    all: { type: "boolean", description: "delete every saved profile" },
  },
  globalOptions: ["profile", "output", "color", "debug", "help"],
  examples: [
    { command: "logout", description: "Forget the default profile" },
    { command: "logout --profile sandbox", description: "Forget the profile named sandbox" },
    { command: "logout --all", description: "Forget every profile" },
  ],
  async run(context) {
    const path = profilesPath(context.io.env);
    const file = await readProfiles(path);
    const names = context.options.all === true ? Object.keys(file.profiles) : [checkProfileName(context.globals.profile ?? context.io.env.SDS_PROFILE ?? defaultProfileName)];
    const removed = names.filter((name) => name in file.profiles);
    if (removed.length > 0) {
      const remaining = Object.fromEntries(Object.entries(file.profiles).filter(([name]) => !removed.includes(name)));
      await writeProfiles(path, { version: 1, profiles: remaining });
    }
    if (context.output.format !== "table") {
      await context.output.document({ removed, profilesPath: path });
      return;
    }
    if (removed.length === 0) context.output.note(context.options.all === true ? "No profiles saved; nothing to do." : `No profile "${names[0] ?? ""}" saved; nothing to do.`);
    else context.output.note(`Logged out: removed ${removed.map((name) => `"${name}"`).join(", ")} from ${path}.`);
  },
});
