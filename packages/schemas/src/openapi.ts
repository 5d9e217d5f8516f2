import { z } from "zod";
import {
  EncryptionSettings,
  SupplierAccount,
  SupplierAccountResponse,
  UrlSettings,
  UrlSettingsBody,
} from "./account.ts";
import * as collections from "./collections.ts";
import { Envelope, EnvelopeError } from "./envelope.ts";
import { operations, type OperationDefinition } from "./operations.ts";
import { SurveyQualification, SurveyQualificationsResponse } from "./qualification.ts";
import { QuotaCondition, SurveyQuota, SurveyQuotasResponse } from "./quota.ts";
import { Survey, SurveyListResponse } from "./survey.ts";
import * as extras from "./survey-extras.ts";

/** Every named schema, as it appears under `components.schemas`. */
const componentSchemas: Record<string, z.ZodType> = {
  Envelope,
  EnvelopeError,
  Survey,
  SurveyListResponse,
  SurveyQualification,
  SurveyQualificationsResponse,
  EncryptionSettings,
  UrlSettings,
  UrlSettingsBody,
  SupplierAccount,
  SupplierAccountResponse,
  QuotaCondition,
  SurveyQuota,
  SurveyQuotasResponse,
  SurveyStatsResponse: extras.SurveyStatsResponse,
  SurveyGroup: extras.SurveyGroup,
  SurveyGroupsResponse: extras.SurveyGroupsResponse,
  RecontactRespondent: extras.RecontactRespondent,
  RecontactRespondentsResponse: extras.RecontactRespondentsResponse,
  CollectionId: collections.CollectionId,
  CollectionItem: collections.CollectionItem,
  Language: collections.Language,
  LanguagesResponse: collections.LanguagesResponse,
  IndustriesResponse: collections.IndustriesResponse,
  StudyTypesResponse: collections.StudyTypesResponse,
  SurveyStatusesResponse: collections.SurveyStatusesResponse,
  QualificationCategoriesResponse: collections.QualificationCategoriesResponse,
  QualificationCategoryTypesResponse: collections.QualificationCategoryTypesResponse,
  QualificationTypesResponse: collections.QualificationTypesResponse,
  QualificationsResponse: collections.QualificationsResponse,
  QualificationOption: collections.QualificationOption,
  QualificationDetail: collections.QualificationDetail,
  QualificationDetailResponse: collections.QualificationDetailResponse,
};

const ref = (schema: z.ZodType) => {
  const name = Object.entries(componentSchemas).find(([, candidate]) => candidate === schema)?.[0];
  if (!name) throw new Error("operation schema missing from componentSchemas");
  return { $ref: `#/components/schemas/${name}` };
};

const errorResponse = (description: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "application/json": { schema: ref(Envelope) } },
});

const retryAfterHeader = {
  "Retry-After": {
    description: "When to retry: a delay in seconds or an HTTP date. The client honours it.",
    schema: { type: "string" },
  },
};

/**
 * Every error status `@sds/client` tells apart (its `ApiError` subclasses), each with the error
 * envelope as body, and `default` for any other status: under `components.responses`, referenced
 * by every operation. The fake of `@sds/testing` answers each of them, and a test there validates
 * that traffic against this document.
 */
const errorResponseComponents = {
  BadRequest: errorResponse("Bad request: the body or a path parameter is invalid (`messages` lists the problems)"),
  Unauthorized: errorResponse("The EQ-PARTNER-ACCESS-KEY header is missing or matches no supplier"),
  Forbidden: errorResponse("Forbidden: for example a SupplierId that is not the caller's"),
  NotFound: errorResponse("Not found: no such survey, language or qualification for this caller"),
  MethodNotAllowed: errorResponse("The path exists with another method", {
    Allow: { description: "The methods the path accepts", schema: { type: "string" } },
  }),
  TooManyRequests: errorResponse("Too many requests", retryAfterHeader),
  ServerError: errorResponse("Server or gateway error; 503 may carry Retry-After", retryAfterHeader),
  Error: errorResponse("Any other error, with the error envelope"),
};

const responseRef = (name: keyof typeof errorResponseComponents) => ({ $ref: `#/components/responses/${name}` });

const errorResponses = {
  "400": responseRef("BadRequest"),
  "401": responseRef("Unauthorized"),
  "403": responseRef("Forbidden"),
  "404": responseRef("NotFound"),
  "405": responseRef("MethodNotAllowed"),
  "429": responseRef("TooManyRequests"),
  "5XX": responseRef("ServerError"),
  default: responseRef("Error"),
};

const pathParameterSchema = (name: string) => (name === "SupplierId" ? { type: "string" } : { type: "integer" });

const evidenceNote: Record<OperationDefinition["evidence"], string> = {
  documented: "Documented in the Supplier Data Service specification.",
  observed: "Not documented: path and body as seen in public integrations. Unverified.",
  guessed:
    "Not documented and never seen: the path follows the pattern of the others. Unverified; override it if yours differs.",
};

function operationObject(id: string, operation: OperationDefinition) {
  return {
    operationId: id,
    summary: operation.name,
    description: evidenceNote[operation.evidence],
    "x-sds-evidence": operation.evidence,
    ...(operation.evidence === "documented" ? {} : { "x-sds-unverified": true }),
    parameters: operation.pathParams.map((name) => ({
      name,
      in: "path",
      required: true,
      schema: pathParameterSchema(name),
    })),
    ...(operation.body
      ? { requestBody: { required: true, content: { "application/json": { schema: ref(operation.body) } } } }
      : {}),
    responses: {
      "200": {
        description: "Success (check `hasError`: it can be true under 200)",
        content: { "application/json": { schema: ref(operation.response) } },
      },
      ...errorResponses,
    },
  };
}

/**
 * JSON Schemas (draft 2020-12, as OpenAPI 3.1 takes them) of named zod schemas, for an OpenAPI
 * document's `components.schemas`: a schema used inside another becomes a `$ref` to its name.
 * `io: "input"` describes what a parser accepts (request bodies: defaults optional), `"output"`
 * what it produces (responses). The one way sds-kit turns zod into OpenAPI.
 *
 * @example
 * ```ts
 * const schemas = toComponentSchemas({ Survey, SurveyListResponse });
 * ```
 */
export function toComponentSchemas(
  named: Readonly<Record<string, z.ZodType>>,
  options: { readonly io?: "input" | "output" } = {},
): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const generated = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    unrepresentable: "any",
    io: options.io ?? "output",
    uri: (id) => `#/components/schemas/${id}`,
  });
  const schemas: Record<string, unknown> = {};
  for (const [id, schema] of Object.entries(generated.schemas)) {
    const { $schema: _schema, id: _id, $id: _dollarId, ...rest } = schema as Record<string, unknown>;
    schemas[id] = rest;
  }
  return schemas;
}

/**
 * The OpenAPI 3.1 document of the whole service, generated from the zod schemas and the
 * {@link operations} table. Undocumented operations carry `x-sds-unverified: true`.
 *
 * @example
 * ```ts
 * writeFileSync("openapi.json", JSON.stringify(buildOpenApiDocument(), null, 2));
 * ```
 */
export function buildOpenApiDocument(): Record<string, unknown> {
  const schemas = toComponentSchemas(componentSchemas);

  const paths: Record<string, Record<string, unknown>> = {};
  for (const [id, operation] of Object.entries(operations) as [string, OperationDefinition][]) {
    (paths[operation.path] ??= {})[operation.method.toLowerCase()] = operationObject(id, operation);
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "Supplier Data Service",
      version: "v1",
      description:
        "Generated by @sds/schemas from its zod schemas. Operations marked x-sds-unverified are not in the specification.",
    },
    servers: [
      {
        url: "{baseUrl}",
        variables: {
          baseUrl: {
            default: "https://sandbox.example/api/v1",
            description: "Your deployment's base URL, ending in /api/v1",
          },
        },
      },
    ],
    security: [{ partnerAccessKey: [] }],
    paths,
    components: {
      schemas,
      responses: errorResponseComponents,
      securitySchemes: { partnerAccessKey: { type: "apiKey", in: "header", name: "EQ-PARTNER-ACCESS-KEY" } },
    },
  };
}
