/*
 * Text inside the HTML that sds-sync serves itself (the respondent page, the return's minimal
 * page): one escaping rule, so no page builds its markup from unescaped text.
 */

const escapes: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text safe inside HTML, attributes included. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => escapes[character] ?? character);
}
