import { z } from "zod";
import { GateCode } from "./sessions.ts";

/** The body of every JSON error sds-sync answers: a machine-readable `code` and a sentence. */
export const ErrorBody = z.strictObject({
  error: z.strictObject({
    code: z.string(),
    message: z.string(),
    /** With `respondent_refused` (403): the quality gate's rule that refused the respondent. */
    gate: GateCode.optional(),
  }),
});
/** The body of every JSON error sds-sync answers. */
export type ErrorBody = z.output<typeof ErrorBody>;
