import { z } from "zod";

/** The `error` object of every envelope; `errorCode` is an empty string when there is no error. */
export const EnvelopeError = z.looseObject({
  errorCode: z.string(),
});
export type EnvelopeError = z.infer<typeof EnvelopeError>;

/**
 * The fields the spec says every response body carries.
 *
 * @example
 * ```ts
 * Envelope.parse({ status: "ok", hasError: false, messages: [], error: { errorCode: "" } });
 * ```
 */
export const envelopeShape = {
  /** `"ok"` on success. Other values are not shown by the spec. */
  status: z.string(),
  /** `false` on success; `true` signals an error even under HTTP 200. */
  hasError: z.boolean(),
  /** Empty on reads; one human-readable confirmation on successful updates. */
  messages: z.array(z.string()),
  error: EnvelopeError,
};

/** The common response envelope, on its own (the whole body of an update response). */
export const Envelope = z.looseObject(envelopeShape);
export type Envelope = z.infer<typeof Envelope>;

/**
 * The envelope of the operations the spec does not document. Public integrations show bodies
 * without `status` or `messages`, so every envelope field is optional there.
 */
export const observedEnvelopeShape = {
  status: envelopeShape.status.optional(),
  hasError: envelopeShape.hasError.optional(),
  messages: envelopeShape.messages.optional(),
  error: EnvelopeError.nullable().optional(),
};

/** Response of both update operations: the envelope alone (Rule 3). */
export const UpdateResponse = Envelope;
export type UpdateResponse = Envelope;
