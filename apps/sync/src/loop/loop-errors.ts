import { SyncError, type HttpMeaning } from "../common/errors.ts";

/**
 * The account's encryption settings have not been read yet, so an entry link cannot be signed
 * nor an outcome's signature checked: the caller retries (a marketplace does), nothing is lost.
 */
export class AccountUnavailableError extends SyncError {
  override name = "AccountUnavailableError" as const;
  constructor() {
    super("the account's encryption settings have not been read yet; retry shortly");
  }
  override get http(): HttpMeaning {
    return {
      status: 503,
      code: "account_unavailable",
      message: this.message,
      headers: { "retry-after": "5" },
      logged: false,
    };
  }
}
