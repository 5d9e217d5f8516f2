import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument, operationIds, operations } from "./index.ts";

const committedPath = new URL("../openapi.json", import.meta.url);

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(buildOpenApiDocument());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("is committed as generated: run `pnpm --filter @sds/schemas openapi` when this fails", () => {
    const committed: unknown = JSON.parse(readFileSync(committedPath, "utf8"));
    expect(committed).toEqual(buildOpenApiDocument());
  });

  it("has every operation, marking the undocumented ones unverified", () => {
    const document = buildOpenApiDocument() as {
      paths: Record<string, Record<string, { operationId: string; "x-sds-unverified"?: boolean }>>;
    };
    for (const id of operationIds) {
      const { path, method, evidence } = operations[id];
      const operation = document.paths[path]?.[method.toLowerCase()];
      expect(operation?.operationId).toBe(id);
      expect(operation?.["x-sds-unverified"] === true).toBe(evidence !== "documented");
    }
  });

  it("declares the API key header as the security scheme", () => {
    const document = buildOpenApiDocument() as { components: { securitySchemes: Record<string, unknown> } };
    expect(document.components.securitySchemes).toEqual({
      partnerAccessKey: { type: "apiKey", in: "header", name: "EQ-PARTNER-ACCESS-KEY" },
    });
  });
});

describe("the OpenAPI validator used above", () => {
  it("does reject a broken document, so the validity test has teeth", async () => {
    const broken = { ...buildOpenApiDocument(), paths: { "/surveys": { get: { responses: "none" } } } };
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });
});
