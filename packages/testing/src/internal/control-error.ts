import type { FakeErrorCode } from "../fake/constants.ts";

/**
 * Thrown by the control methods of the fake on bad input (unknown survey, invalid survey, …).
 * A `RangeError`, so callers can catch it as such; the control routes turn it into an HTTP
 * error with its `status` and `errorCode`.
 */
export class ControlError extends RangeError {
  override name = "ControlError" as const;
  readonly status: number;
  readonly errorCode: FakeErrorCode;
  readonly details: readonly string[];

  constructor(status: number, errorCode: FakeErrorCode, message: string, details: readonly string[] = []) {
    super(details.length > 0 ? `${message}: ${details.join("; ")}` : message);
    this.status = status;
    this.errorCode = errorCode;
    this.details = details;
  }
}
