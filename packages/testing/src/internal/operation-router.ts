import { createRouter, operationIds, operations, type OperationId, type Router } from "@sds/schemas";

/** The router of the fake service itself, built from the `operations` table of `@sds/schemas`. */
export const operationRouter: Router<OperationId> = createRouter(
  operationIds.map((id) => ({ id, method: operations[id].method, path: operations[id].path })),
);
