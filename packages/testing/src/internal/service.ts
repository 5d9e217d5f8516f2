import type { OperationId } from "@sds/schemas";
import type { RouteMatch } from "@sds/schemas/internal/router";
import { API_BASE_PATH, API_KEY_HEADER, CONTROL_PREFIX, fakeErrorCodes } from "../fake/constants.ts";
import { formatMillis } from "./dates.ts";
import { errorResponse } from "./envelope.ts";
import type { FaultEngine } from "./fault-engine.ts";
import { corruptResponse, envelopeErrorResponse, statusFaultResponse } from "./fault-responses.ts";
import { operationHandlers } from "./operation-handlers.ts";
import type { RequestLog } from "./request-log.ts";
import { operationRouter } from "./operation-router.ts";
import { sleepUntil } from "./sleep.ts";
import type { Store } from "./store.ts";

/** What the transport must do: send a response, or kill the connection. */
export type Outcome = { readonly kind: "response"; readonly response: Response } | { readonly kind: "reset" };

/** Everything the request pipeline reads; `store()` is a function because `reset()` swaps the store. */
export interface ServiceDependencies {
  readonly store: () => Store;
  readonly faults: FaultEngine;
  readonly log: RequestLog;
  readonly now: () => number;
  readonly maxBodyBytes: number;
  /** Serves `/__sandbox/…` (given the path after the prefix), or `undefined` when control is off. */
  readonly control: ((request: Request, path: string) => Promise<Response>) | undefined;
}

const INTEGER = /^\d{1,15}$/;

/** Answers a request routed to the service: authentication, path parameters, then the operation. */
async function serve(
  route: RouteMatch<OperationId>,
  request: Request,
  path: string,
  supplierId: number | null,
  dependencies: ServiceDependencies,
): Promise<Response> {
  switch (route.kind) {
    case "not-found":
      return errorResponse(404, fakeErrorCodes.routeNotFound, [`No operation at ${request.method} ${path}.`]);
    case "bad-encoding":
      return errorResponse(400, fakeErrorCodes.invalidPathParameter, ["A path segment is not valid percent-encoding."]);
    case "method-not-allowed":
      return errorResponse(
        405,
        fakeErrorCodes.methodNotAllowed,
        [`${request.method} is not allowed on ${path}; use ${route.allow.join(", ")}.`],
        {
          allow: route.allow.join(", "),
        },
      );
    case "matched":
      break;
  }
  if (request.headers.get(API_KEY_HEADER) === null) {
    return errorResponse(401, fakeErrorCodes.missingApiKey, [`The ${API_KEY_HEADER} header is required.`]);
  }
  if (supplierId === null) return errorResponse(401, fakeErrorCodes.invalidApiKey, ["The API key is not valid."]);

  const ids: Record<string, number> = {};
  for (const [name, value] of Object.entries(route.params)) {
    if (name === "SupplierId") {
      if (value !== String(supplierId)) {
        return errorResponse(403, fakeErrorCodes.supplierMismatch, [
          `SupplierId ${value} is not the supplier of this API key.`,
        ]);
      }
    } else if (INTEGER.test(value)) {
      ids[name] = Number(value);
    } else {
      return errorResponse(400, fakeErrorCodes.invalidPathParameter, [
        `${name} must be a non-negative integer, got "${value}".`,
      ]);
    }
  }
  try {
    return await operationHandlers[route.id]({
      request,
      store: dependencies.store(),
      supplierId,
      ids,
      maxBodyBytes: dependencies.maxBodyBytes,
    });
  } catch (error) {
    // A bug in the fake must still look like the service failing, never like a hung request.
    return errorResponse(500, fakeErrorCodes.internalError, [
      `The fake failed: ${error instanceof Error ? error.message : String(error)}`,
    ]);
  }
}

/**
 * Answers one request. `receivedAt` is when it arrived (`performance.now()`), from which injected
 * latency is counted.
 */
export type ServiceHandler = (request: Request, receivedAt?: number) => Promise<Outcome>;

/**
 * Creates the request pipeline shared by the in-process fetch and the HTTP server.
 *
 * Injected latency is counted from the request's arrival, as a real upstream's latency is: the
 * request is served at once (the fake's own work counts toward the delay) and its outcome held
 * until `receivedAt + latency`. Sleeping the full latency before serving would add the fake's
 * processing on top of it and make every latency-bound figure look worse than the network it models.
 */
export function createService(dependencies: ServiceDependencies): ServiceHandler {
  return async (request, receivedAt = performance.now()) => {
    const url = new URL(request.url);
    const path = url.pathname;
    if (dependencies.control && (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`))) {
      return { kind: "response", response: await dependencies.control(request, path.slice(CONTROL_PREFIX.length)) };
    }

    const timestamp = formatMillis(dependencies.now());
    const apiKey = request.headers.get(API_KEY_HEADER);
    const supplierId = dependencies.store().supplierIdForKey(apiKey) ?? null;
    const relativePath = path.startsWith(`${API_BASE_PATH}/`) ? path.slice(API_BASE_PATH.length) : null;
    const route: RouteMatch<OperationId> =
      relativePath === null ? { kind: "not-found" } : operationRouter.match(request.method, relativePath);
    const operationId = route.kind === "matched" ? route.id : null;
    const decision = dependencies.faults.decide({
      operationId,
      path: relativePath ?? path,
      method: request.method,
      supplierId,
    });

    let status = 0;
    try {
      const fault = decision.outcome;
      let outcome: Outcome;
      if (fault?.kind === "connection-reset") {
        outcome = { kind: "reset" };
      } else if (fault?.kind === "status") {
        outcome = { kind: "response", response: statusFaultResponse(fault) };
      } else if (fault?.kind === "envelope-error") {
        outcome = { kind: "response", response: envelopeErrorResponse(fault) };
      } else {
        let response = await serve(route, request, path, supplierId, dependencies);
        if (fault) response = await corruptResponse(response, fault);
        outcome = { kind: "response", response };
      }
      if (outcome.kind === "response") {
        status = outcome.response.status;
        // The fake's clock, not the machine's, so a client's clock-skew check can be tested.
        outcome.response.headers.set("date", new Date(dependencies.now()).toUTCString());
      }
      if (decision.latencyMs > 0) await sleepUntil(receivedAt + decision.latencyMs, request.signal);
      return outcome;
    } finally {
      dependencies.log.add({
        method: request.method,
        path,
        query: url.search,
        operationId,
        status,
        supplierId,
        timestamp,
        durationMs: Math.round((performance.now() - receivedAt) * 1000) / 1000,
        faults: decision.fired,
        injectedLatencyMs: decision.latencyMs,
      });
    }
  };
}
