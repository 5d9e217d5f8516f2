import { operationIds } from "@sds/schemas";
import { z } from "zod";

/*
 * Runtime check of a fault spec: the same rules whether it comes from `api.faults.add()` or
 * from a POST to `/__sandbox/faults`, so a typo in a test fails loudly instead of never firing.
 */

const target = {
  operation: z.union([z.enum(operationIds), z.array(z.enum(operationIds)).min(1)]).optional(),
  path: z.string().startsWith("/").optional(),
  method: z.string().min(1).optional(),
  supplierId: z.int().optional(),
  rate: z.number().min(0).max(1).optional(),
  count: z.int().positive().optional(),
};

/** Every fault kind with its own fields; unknown fields are refused. */
export const FaultSpecSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("latency"),
    ms: z.number().min(0).max(600_000),
    jitterMs: z.number().min(0).max(600_000).optional(),
    ...target,
  }),
  z.strictObject({
    kind: z.literal("status"),
    status: z.int().min(400).max(599),
    retryAfter: z.union([z.number().min(0), z.string().min(1)]).optional(),
    body: z.enum(["envelope", "empty", "text"]).optional(),
    errorCode: z.string().min(1).optional(),
    ...target,
  }),
  z.strictObject({
    kind: z.literal("envelope-error"),
    errorCode: z.string().min(1).optional(),
    message: z.string().optional(),
    ...target,
  }),
  z.strictObject({ kind: z.literal("malformed-json"), ...target }),
  z.strictObject({ kind: z.literal("truncated-json"), keep: z.number().min(0).max(1).optional(), ...target }),
  z.strictObject({ kind: z.literal("connection-reset"), ...target }),
]);
