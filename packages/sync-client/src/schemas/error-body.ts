import { z } from "zod";

/** The body of every JSON error sds-sync answers: a machine-readable `code` and a sentence. */
export const ErrorBody = z.strictObject({ error: z.strictObject({ code: z.string(), message: z.string() }) });
/** The body of every JSON error sds-sync answers. */
export type ErrorBody = z.output<typeof ErrorBody>;
