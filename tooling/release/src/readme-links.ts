/**
 * Markdown link targets that are neither absolute nor in-page anchors. A package's README is
 * shown on the registry's page without the repository around it, so such links lead nowhere.
 */
export function relativeLinksIn(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(\s*<?([^)\s>]+)/g)].map((match) => match[1] ?? "");
  return targets.filter((target) => !/^(?:[a-z][a-z0-9+.-]*:|#)/i.test(target));
}
