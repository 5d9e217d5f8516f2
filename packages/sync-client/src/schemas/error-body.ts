import { z } from "zod";
import { GateCode } from "./sessions.ts";

/** The body of every JSON error sds-sync answers: a machine-readable `code` and a sentence. */
export const ErrorBody = z.strictObject({
  error: z.strictObject({
    code: z.string(),
    message: z.string(),
    /** With `respondent_refused` (403): the quality gate's rule that refused the respondent. */
    gate: GateCode.optional(),
    /** With `not_leader` (409), when the follower knows it: the id of the replica that leads. */
    leaderId: z.string().optional().describe("With not_leader (409): the id of the replica that leads, when known."),
    /** With `not_leader` (409), where known: the address of the leader's API, to send the request to. */
    leaderAddress: z
      .string()
      .optional()
      .describe("With not_leader (409): the address of the leader's API, where known."),
  }),
});
/** The body of every JSON error sds-sync answers. */
export type ErrorBody = z.output<typeof ErrorBody>;
