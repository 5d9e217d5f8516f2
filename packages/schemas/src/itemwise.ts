import { z } from "zod";
import { strict } from "./strict.ts";
import { SurveyListResponse } from "./survey.ts";

/** One problem with one item of a list, its path relative to the item. */
export interface ItemIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly code: string;
}

/** An item that failed validation: where it was, what it was and why it failed. */
export interface InvalidItem {
  /** Position in the list as received. */
  readonly index: number;
  /** The item exactly as received. */
  readonly item: unknown;
  readonly issues: readonly ItemIssue[];
}

/** The outcome of an itemwise parse: the response with only its valid items, and the invalid ones. */
export type ItemwiseResult<T> =
  | { readonly success: true; readonly data: T; readonly invalid: readonly InvalidItem[] }
  | { readonly success: false; readonly error: z.ZodError };

/** Options of the itemwise parsers. */
export interface ItemwiseOptions {
  /** Report unknown fields as issues (see {@link strict}). @default false */
  readonly strict?: boolean;
}

type ListSchema = z.ZodObject<z.ZodRawShape>;
const shellCache = new WeakMap<ListSchema, Map<string, ListSchema>>();

/**
 * Parses a list response so that one bad item costs only itself: the envelope must be valid
 * (else `success: false`), each item is parsed alone, valid items are kept in order and
 * invalid ones reported with their index.
 *
 * @example
 * ```ts
 * const result = parseItemwise(SurveyListResponse, "Surveys", body);
 * if (result.success) for (const bad of result.invalid) console.warn(bad.index, bad.issues);
 * ```
 */
export function parseItemwise<Schema extends ListSchema>(
  schema: Schema,
  key: keyof Schema["shape"] & string,
  input: unknown,
  options: ItemwiseOptions = {},
): ItemwiseResult<z.infer<Schema>> {
  const listField = schema.shape[key];
  if (!(listField instanceof z.ZodArray)) throw new TypeError(`field "${key}" of the schema is not an array`);
  const itemSchema = options.strict ? strict(listField.element as z.ZodType) : (listField.element as z.ZodType);
  const shell = shellOf(options.strict ? strict(schema) : schema, key);
  const envelope = shell.safeParse(input);
  if (!envelope.success) return { success: false, error: envelope.error };

  const items = (envelope.data as Record<string, unknown[]>)[key] ?? [];
  const valid: unknown[] = [];
  const invalid: InvalidItem[] = [];
  items.forEach((item, index) => {
    const parsed = itemSchema.safeParse(item);
    if (parsed.success) {
      valid.push(parsed.data);
    } else {
      invalid.push({
        index,
        item,
        issues: parsed.error.issues.map(({ path, message, code }) => ({ path, message, code })),
      });
    }
  });
  return { success: true, data: { ...envelope.data, [key]: valid } as z.infer<Schema>, invalid };
}

/** The list schema with its item array loosened to `unknown[]`, so the envelope is checked alone. */
function shellOf(schema: ListSchema, key: string): ListSchema {
  let byKey = shellCache.get(schema);
  if (!byKey) shellCache.set(schema, (byKey = new Map<string, ListSchema>()));
  let shell = byKey.get(key);
  if (!shell) byKey.set(key, (shell = schema.extend({ [key]: z.array(z.unknown()) })));
  return shell;
}

/**
 * {@link parseItemwise} for Get Surveys: one malformed survey does not throw away the others.
 *
 * @example
 * ```ts
 * const result = parseSurveyList(body);
 * if (!result.success) throw result.error; // the envelope itself was malformed
 * result.data.Surveys; // the valid surveys
 * result.invalid; // [{ index, item, issues }]
 * ```
 */
export function parseSurveyList(input: unknown, options: ItemwiseOptions = {}): ItemwiseResult<SurveyListResponse> {
  return parseItemwise(SurveyListResponse, "Surveys", input, options);
}
