import { z } from "zod";

const strictCache = new WeakMap<z.ZodType, z.ZodType>();

/**
 * The same schema with every object made strict, all the way down: unknown fields are
 * reported as `unrecognized_keys` issues instead of kept. For contract tests that must notice
 * when the upstream adds a field. The inferred type is unchanged.
 *
 * @example
 * ```ts
 * const result = strict(SurveyListResponse).safeParse(body);
 * if (!result.success) console.log(result.error.issues); // names each unknown field
 * ```
 */
export function strict<Schema extends z.ZodType>(schema: Schema): Schema {
  const cached = strictCache.get(schema);
  if (cached) return cached as Schema;
  const converted = toStrict(schema);
  strictCache.set(schema, converted);
  return converted as Schema;
}

function toStrict(schema: z.ZodType): z.ZodType {
  if (isObjectSchema(schema)) {
    const shape: Record<string, z.ZodType> = {};
    for (const [key, field] of Object.entries(schema.shape)) shape[key] = strict(field);
    return z.strictObject(shape);
  }
  if (schema instanceof z.ZodArray) return z.array(strict(schema.element as z.ZodType));
  if (schema instanceof z.ZodOptional) return strict(schema.unwrap() as z.ZodType).optional();
  if (schema instanceof z.ZodNullable) return strict(schema.unwrap() as z.ZodType).nullable();
  if (schema instanceof z.ZodUnion) {
    const options = (schema.options as readonly z.ZodType[]).map((option) => strict(option));
    return z.union(options as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  }
  return schema;
}

function isObjectSchema(schema: z.ZodType): schema is z.ZodObject<Record<string, z.ZodType>> {
  return schema instanceof z.ZodObject;
}
