import { z } from "zod";

/** `GET /healthz`. */
export const Health = z.object({ status: z.literal("ok") });
/** `GET /healthz`. */
export type Health = z.output<typeof Health>;

/** `GET /readyz`, 200 or 503. */
export const Readiness = z.looseObject({
  ready: z.boolean(),
  reason: z.string().optional().describe("Why not ready (503)."),
  lastSuccessAt: z.iso.datetime().optional(),
  ageSeconds: z.number().optional(),
  staleAfterSeconds: z.number().optional(),
  closuresHeld: z.int().optional(),
  warnings: z
    .array(z.string())
    .optional()
    .describe("What works but needs an operator's attention (such as outcomes accepted unsigned)."),
});
/** `GET /readyz`. */
export type Readiness = z.output<typeof Readiness>;
