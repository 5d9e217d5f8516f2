import type { z } from "zod";

/** Node types whose parsed output is the input itself: they check, they never change a value. */
const checkingOnly = new Set(["string", "number", "boolean", "null", "unknown", "any", "literal", "enum"]);
const verdicts = new WeakMap<z.ZodType, boolean>();

interface SchemaDefinition {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly catchall?: z.ZodType;
  readonly element?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly coerce?: boolean;
}

/**
 * Whether parsing with `schema` returns a copy equal to its input (JSON input, that is): true
 * when the schema is built only of objects that keep unknown fields, arrays, optionals,
 * nullables, unions and plain checks — no transform, default, coercion or field stripping.
 * Then a valid body can be returned as it is, and a check that builds no output suffices.
 */
export function parsesToItsInput(schema: z.ZodType): boolean {
  const known = verdicts.get(schema);
  if (known !== undefined) return known;
  // Provisionally false, so a recursive schema ends the walk (and takes the safe path).
  verdicts.set(schema, false);
  const verdict = judge(schema._zod.def);
  verdicts.set(schema, verdict);
  return verdict;
}

function judge(definition: SchemaDefinition): boolean {
  const { type } = definition;
  if (checkingOnly.has(type)) return definition.coerce !== true;
  switch (type) {
    case "object": {
      // Without a catchall, unknown fields are stripped: the output would differ from the input.
      const { shape = {}, catchall } = definition;
      const keepsUnknown =
        catchall !== undefined && (catchall._zod.def.type === "unknown" || catchall._zod.def.type === "never");
      return keepsUnknown && Object.values(shape).every(parsesToItsInput);
    }
    case "array":
      return definition.element !== undefined && parsesToItsInput(definition.element);
    case "optional":
    case "nullable":
      return definition.innerType !== undefined && parsesToItsInput(definition.innerType);
    case "union":
      return (definition.options ?? []).every(parsesToItsInput);
    default:
      return false;
  }
}
