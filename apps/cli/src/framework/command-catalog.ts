import type { CommandCatalog, CommandEntry } from "./command.ts";

/**
 * Builds the {@link CommandCatalog} of a command table. Groups are a `Map`, so that a word
 * typed by the user (`sds constructor`) is only ever a name, never a property of an object.
 */
export function createCommandCatalog(
  groups: Readonly<Record<string, string>>,
  entries: readonly CommandEntry[],
): CommandCatalog {
  return {
    groups: new Map(Object.entries(groups)),
    entries,
    find: (words) =>
      entries.find(
        (entry) => entry.path.length === words.length && entry.path.every((word, index) => word === words[index]),
      ),
    isPrefix: (words) =>
      entries.some(
        (entry) => words.length <= entry.path.length && words.every((word, index) => entry.path[index] === word),
      ),
    inGroup: (group) => entries.filter((entry) => entry.path[0] === group && entry.path.length > 1),
  };
}
