import type { SyncRequestOptions } from "../client-options.ts";
import type { SyncTransport } from "../internal/transport.ts";
import { isSyncServerError } from "../errors/guards.ts";
import { ClosuresConfirmed, CycleRun, RunAccepted } from "../schemas/status.ts";

/** The operator's levers on the sync cycle (on the leader). */
export class Cycles {
  readonly #transport: SyncTransport;

  /** @internal Built by the client. */
  constructor(transport: SyncTransport) {
    this.#transport = transport;
  }

  /**
   * `POST /v1/sync/run`: runs a cycle now and answers its result, failed ones included (HTTP
   * 502 carries the failed run). Never retried: manual runs are spaced.
   *
   * @throws SyncConflictError (`not_leader`); SyncRateLimitError when runs are spaced or held.
   */
  async run(options: SyncRequestOptions = {}): Promise<CycleRun> {
    try {
      const answer = await this.#transport.request(
        { operation: "runSync", method: "POST", path: "/v1/sync/run", response: CycleRun, idempotent: false },
        options,
      );
      return answer.data;
    } catch (error) {
      // A failed cycle is an answer, not a failure of the call: 502 with the run.
      if (isSyncServerError(error) && error.status === 502) {
        const failed = CycleRun.safeParse(error.body);
        if (failed.success) return failed.data;
      }
      throw error;
    }
  }

  /** `POST /v1/sync/run?wait=false`: asks for a cycle and returns at once (202); the engine runs it. */
  async start(options: SyncRequestOptions = {}): Promise<RunAccepted> {
    const answer = await this.#transport.request(
      {
        operation: "runSync",
        method: "POST",
        path: "/v1/sync/run",
        query: new URLSearchParams({ wait: "false" }),
        response: RunAccepted,
        idempotent: false,
      },
      options,
    );
    return answer.data;
  }

  /** `POST /v1/sync/closures/confirm`: confirms the closures the mass-closure guard holds; the next cycle applies them. */
  async confirmClosures(options: SyncRequestOptions = {}): Promise<ClosuresConfirmed> {
    const answer = await this.#transport.request(
      {
        operation: "confirmClosures",
        method: "POST",
        path: "/v1/sync/closures/confirm",
        response: ClosuresConfirmed,
        idempotent: true,
      },
      options,
    );
    return answer.data;
  }
}
