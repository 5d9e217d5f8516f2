import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFakeSupplierApi, DEFAULT_SUPPLIER_ID } from "@sds/testing";
import { describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { spawnService } from "./subprocess.ts";

describe("the sds-sync process", () => {
  it("refuses to start on invalid configuration, naming every variable at fault, with exit status 78", async () => {
    const service = spawnService({ SDS_BASE_URL: "ftp://sds.example.com", SYNC_CONCURRENCY: "0", DATABASE_URL: "mysql://root:hunter2@db/x" });
    const { code } = await service.exited;
    expect(code).toBe(78);
    const output = service.output.join("\n");
    for (const variable of ["SDS_BASE_URL", "SDS_API_KEY", "SYNC_CONCURRENCY", "DATABASE_URL"]) expect(output).toContain(`${variable}:`);
    expect(output).not.toContain("hunter2");
  });

  it("never writes the API key or the token to its logs, even when a request with the key fails", async () => {
    const apiKey = "canary-key-3b9f1c";
    const token = "canary-token-8d2e4a0f";
    const api = createFakeSupplierApi({ suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey, surveys: 5 }] });
    const fake = await api.listen();
    const directory = mkdtempSync(join(tmpdir(), "sds-sync-main-"));
    try {
      // A wrong key first: the failure is logged, with the request's details, and must still not show the key.
      const service = spawnService({ SDS_BASE_URL: fake.baseUrl, SDS_API_KEY: `${apiKey}-wrong`, SYNC_API_TOKEN: token, DATABASE_URL: `sqlite:${join(directory, "sds.db")}`, LOG_LEVEL: "debug" });
      await service.url;
      await waitFor(() => service.output.some((line) => line.includes("sync cycle failed")), 20_000);
      service.child.kill("SIGTERM");
      expect((await service.exited).code).toBe(0);
      const output = service.output.join("\n");
      expect(output).toMatch(/401/);
      expect(output).not.toContain(apiKey);
      expect(output).not.toContain(token);
    } finally {
      await fake.close();
      await api.close();
      rmSync(directory, { recursive: true, force: true });
    }
  }, 30_000);
});
