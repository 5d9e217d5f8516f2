import type { RecontactRespondentsResponse } from "@sds/schemas";
import type { ApiPromise } from "../api-promise.ts";
import type { RequestOptions } from "../client-options.ts";
import { operationParser } from "../internal/operation-parsers.ts";
import type { Transport } from "../internal/transport.ts";

/** Re-contact respondents of a survey. */
export class Recontacts {
  readonly #transport: Transport;

  /** @internal Resources are created by the client: use `sds.recontacts`. */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Get ReContact Respondents of one survey. Undocumented: the path
   * (`/recontact-respondents/{surveyId}`) is a guess and the body is read leniently; override
   * the path with the client option `paths.listRecontactRespondents`.
   */
  list(surveyId: number, options?: RequestOptions): ApiPromise<RecontactRespondentsResponse> {
    return this.#transport.request(
      {
        operation: "listRecontactRespondents",
        pathParams: { surveyId },
        parse: operationParser("listRecontactRespondents"),
      },
      options,
    );
  }
}
