import { operations, strict } from "@sds/schemas";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parsesToItsInput } from "./pass-through.ts";

describe("parsesToItsInput", () => {
  it("holds for every response schema of the operations table, loose and strict", () => {
    for (const operation of Object.values(operations)) {
      expect(parsesToItsInput(operation.response)).toBe(true);
      expect(parsesToItsInput(strict(operation.response))).toBe(true);
    }
  });

  it("fails for schemas that change what they parse", () => {
    expect(parsesToItsInput(z.looseObject({ a: z.string().transform(Number) }))).toBe(false);
    expect(parsesToItsInput(z.looseObject({ a: z.string().default("x") }))).toBe(false);
    expect(parsesToItsInput(z.object({ a: z.string() }))).toBe(false);
    expect(parsesToItsInput(z.array(z.coerce.number()))).toBe(false);
    expect(parsesToItsInput(z.looseObject({ a: z.union([z.string(), z.string().pipe(z.coerce.number())]) }))).toBe(
      false,
    );
  });

  it("agrees with zod: where it holds, parsing returns a value equal to the input", () => {
    const schema = z.looseObject({
      id: z.int(),
      tags: z.array(z.string()).optional(),
      owner: z.looseObject({ name: z.string() }).nullable(),
    });
    const input = { id: 3, tags: ["a"], owner: { name: "x", extra: [1, { deep: true }] }, unknown: "kept" };
    expect(parsesToItsInput(schema)).toBe(true);
    expect(schema.parse(input)).toEqual(input);
  });
});
