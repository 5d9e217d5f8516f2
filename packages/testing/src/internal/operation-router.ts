import { operationIds, operations, type OperationId } from "@sds/schemas";
import { createRouter, type Router } from "@sds/schemas/internal/router";

/** The router of the fake service itself, built from the `operations` table of `@sds/schemas`. */
export const operationRouter: Router<OperationId> = createRouter(
  operationIds.map((id) => ({ id, method: operations[id].method, path: operations[id].path })),
);
