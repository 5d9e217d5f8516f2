/** A query string from the given values: `undefined` left out, arrays comma-joined, dates as ISO 8601. */
export function queryOf(
  values: Readonly<Record<string, string | number | boolean | Date | readonly (string | number)[] | undefined>>,
): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    if (value instanceof Date) query.set(name, value.toISOString());
    else if (Array.isArray(value)) query.set(name, value.join(","));
    else query.set(name, String(value));
  }
  return query;
}
