import { toComponentSchemas } from "@sds/schemas";
import { z } from "zod";
import { VERSION } from "../common/version.ts";
import { ErrorBody, errorResponses, type Parameter, type SuccessDoc } from "./route-doc.ts";
import { securityOf, securitySchemes } from "./route-access.ts";
import { defineRoutes, type RouteModule, type RouteRow } from "./route-module.ts";

/*
 * `GET /openapi.json`: the OpenAPI 3.1 document of sds-sync's HTTP API, built at run time from
 * the route modules the service composes (each row's doc, the zod schemas the module carries),
 * committed nowhere. test/openapi.test.ts validates every route's real answers against it.
 */

const parameterSchema = (schema: z.ZodType): unknown => {
  const { $schema: _schema, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" });
  return rest;
};

function parameterObject(parameter: Parameter) {
  return {
    name: parameter.name,
    in: parameter.in,
    description: parameter.description,
    ...(parameter.required === true ? { required: true } : {}),
    ...(parameter.explode === false ? { style: "form", explode: false } : {}),
    schema: parameterSchema(parameter.schema),
  };
}

function responseObject(answer: SuccessDoc<string>) {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  if (typeof answer === "string")
    return { description: answer, content: { "application/json": { schema: ref(answer) } } };
  if ("contentType" in answer) return { description: answer.contentType, content: { [answer.contentType]: {} } };
  if ("description" in answer) return { description: answer.description };
  return { description: answer.join(" or "), content: { "application/json": { schema: { anyOf: answer.map(ref) } } } };
}

const sortedByStatus = (responses: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));

function operationObject(id: string, route: RouteRow) {
  const { doc } = route;
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(doc.success)) responses[status] = responseObject(answer);
  for (const status of doc.errors)
    responses[status] = { $ref: `#/components/responses/${errorResponses[status].name}` };
  return {
    operationId: id,
    summary: doc.summary,
    security: securityOf(route.access),
    // The access level itself: `security` cannot tell an open route from one that checks a signature.
    "x-sds-access": route.access,
    ...(doc.parameters ? { parameters: doc.parameters.map(parameterObject) } : {}),
    ...(doc.requestBody
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: `#/components/schemas/${doc.requestBody}` } } },
          },
        }
      : {}),
    responses: sortedByStatus(responses),
  };
}

/** The HEAD operation of a GET route (the router answers HEAD wherever GET is): GET's statuses and headers, no bodies. */
function headOperationObject(id: string, route: RouteRow) {
  const { doc } = route;
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(doc.success))
    responses[status] = { description: responseObject(answer).description };
  for (const status of doc.errors) {
    const { description, ...rest } = errorResponses[status];
    responses[status] = { description, ...("headers" in rest ? { headers: rest.headers } : {}) };
  }
  return {
    ...operationObject(id, route),
    operationId: `${id}Head`,
    summary: doc.head ?? `${doc.summary}: GET's status and headers, without the body`,
    responses: sortedByStatus(responses),
  };
}

/** Every schema of the modules by name; a name two modules give to different schemas is a programming error. */
function mergeSchemas(
  modules: readonly RouteModule[],
  pick: (module: RouteModule) => Readonly<Record<string, z.ZodType>>,
): Record<string, z.ZodType> {
  const merged: Record<string, z.ZodType> = {};
  for (const module of modules) {
    for (const [name, schema] of Object.entries(pick(module))) {
      if (Object.hasOwn(merged, name) && merged[name] !== schema)
        throw new Error(`two route modules name different schemas ${name}`);
      merged[name] = schema;
    }
  }
  return merged;
}

/** The OpenAPI 3.1 document of the modules' routes: one operation per route, a HEAD operation beside every GET. */
export function buildOpenApiDocument(modules: readonly RouteModule[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const routeIds = new Set<string>();
  for (const module of modules) {
    for (const [id, route] of Object.entries(module.routes)) {
      if (routeIds.has(id)) throw new Error(`two route modules declare the route ${id}`);
      routeIds.add(id);
      const item = (paths[route.path] ??= {});
      item[route.method.toLowerCase()] = operationObject(id, route);
      if (route.method === "GET") item.head = headOperationObject(id, route);
    }
  }
  const responses: Record<string, unknown> = {};
  for (const { name, description, ...rest } of Object.values(errorResponses)) {
    responses[name] = {
      description,
      ...rest,
      content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } },
    };
  }
  const schemas = { ErrorBody, ...mergeSchemas(modules, (module) => module.schemas) };
  return {
    openapi: "3.1.0",
    info: {
      title: "sds-sync",
      version: VERSION,
      description:
        "The HTTP API of sds-sync, generated from its zod schemas. Each operation lists the tokens that open it: with SYNC_API_TOKEN set, routerToken (SYNC_ROUTER_TOKEN) or apiToken for the router's routes, apiToken for the rest; with SYNC_METRICS_TOKEN set, metricsToken or apiToken for /metrics.",
    },
    paths,
    components: {
      schemas: {
        ...toComponentSchemas(schemas),
        ...toComponentSchemas(
          mergeSchemas(modules, (module) => module.bodies),
          { io: "input" },
        ),
      },
      responses,
      securitySchemes: securitySchemes(),
    },
  };
}

/** `GET /openapi.json`: this document (validated as OpenAPI 3.1 by the tests, outlined here). */
export const OpenApiDocument = z.looseObject({
  openapi: z.literal("3.1.0"),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

/**
 * The module serving `GET /openapi.json` for the given modules (itself included). Open like
 * `/metrics`: it holds no data, only the contract, and tools fetch it without credentials.
 */
export function openApiRoutes(modules: readonly RouteModule[]): RouteModule {
  let documentJson: string | undefined;
  const module: RouteModule = defineRoutes({
    schemas: { OpenApiDocument },
    routes: {
      openApi: {
        method: "GET",
        path: "/openapi.json",
        access: "open",
        handler: () => {
          documentJson ??= JSON.stringify(buildOpenApiDocument([...modules, module]));
          return Promise.resolve({ status: 200, body: documentJson, contentType: "application/json; charset=utf-8" });
        },
        doc: { summary: "This document", success: { "200": "OpenApiDocument" }, errors: ["405"] },
      },
    },
  });
  return module;
}
