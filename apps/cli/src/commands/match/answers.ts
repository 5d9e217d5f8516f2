import { UsageError } from "../../framework/errors.ts";

/**
 * The answers of `sds match --answers`, each value either a JSON object as `POST /v1/match`
 * takes it (`{"42":["34"],"43":["2"]}`) or `QUALIFICATION_ID=CODE[,CODE…]` (`42=34`, `43=1,2`);
 * repeated values are merged, codes of one id in the order given. A `Map` until the end, so
 * that a typed id is only ever a key.
 *
 * @throws UsageError for a value in neither form.
 */
export function parseAnswers(values: readonly string[]): Record<string, string[]> {
  const answers = new Map<string, string[]>();
  const add = (id: string, codes: readonly string[]) => {
    answers.set(id, [...(answers.get(id) ?? []), ...codes]);
  };
  for (const value of values) {
    const trimmed = value.trim();
    if (trimmed.startsWith("{")) {
      for (const [id, codes] of Object.entries(parseJsonAnswers(trimmed))) add(id, codes);
      continue;
    }
    const match = /^(\d{1,12})=(.*)$/.exec(trimmed);
    if (match === null)
      throw new UsageError(`--answers: "${value}" is not QUALIFICATION_ID=CODE[,CODE…] or a JSON object`, {
        hint: `Such as --answers 42=34 --answers 43=2, or --answers '{"42":["34"],"43":["2"]}'.`,
      });
    const codes = (match[2] ?? "")
      .split(",")
      .map((code) => code.trim())
      .filter((code) => code !== "");
    add(match[1] as string, codes);
  }
  return Object.fromEntries(answers);
}

function parseJsonAnswers(text: string): Record<string, string[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--answers: not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new UsageError('--answers: the JSON must be an object such as {"42":["34"]}');
  const result = new Map<string, string[]>();
  for (const [id, codes] of Object.entries(parsed)) {
    const list: unknown[] = Array.isArray(codes) ? codes : [codes];
    if (!list.every((code) => typeof code === "string" || typeof code === "number"))
      throw new UsageError(`--answers: the codes of ${id} must be strings, such as ["34"]`);
    result.set(id, list.map(String));
  }
  return Object.fromEntries(result);
}
