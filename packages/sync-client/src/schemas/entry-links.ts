import { z } from "zod";
import { IMPORTED_TOKEN_PREFIX } from "./history.ts";
import { LoopText, LoopTextOrEmpty } from "./loop-text.ts";

/** Body of `POST /v1/entry-links`. */
export const EntryLinkBody = z.strictObject({
  surveyId: z.int().positive(),
  token: LoopText.refine((token) => !token.startsWith(IMPORTED_TOKEN_PREFIX), {
    message: `token must not start with ${IMPORTED_TOKEN_PREFIX} (the tokens of imported history)`,
  }).describe(
    `The transaction token of this entry (echoed by the marketplace in the outcome); not starting with ${IMPORTED_TOKEN_PREFIX}, the tokens of imported history.`,
  ),
  uid: LoopTextOrEmpty.default("").describe(
    "The respondent's id in the supplier's system; empty or absent when there is none.",
  ),
});
/** Body of `POST /v1/entry-links`. */
export type EntryLinkBody = z.input<typeof EntryLinkBody>;

/** `POST /v1/entry-links`: 201 for a new entry, 200 for a repeat of the same token (same link). */
export const EntryLink = z.object({
  link: z.string().describe("The entry link, every placeholder filled."),
  surveyId: z.int(),
  token: z.string(),
  uid: z.string(),
  issuedAt: z.string(),
});
/** `POST /v1/entry-links`. */
export type EntryLink = z.output<typeof EntryLink>;
