import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { configSecrets, describeConfig, describeDatabase, loadConfig } from "./config.ts";
import { createLogger } from "../common/logger.ts";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString("utf8"));
      done();
    },
  });
  return { lines, stream };
}

describe("the logger", () => {
  const config = loadConfig({
    SDS_BASE_URL: "https://sds.example.com/api/v1",
    SDS_API_KEY: "canary-api-key-7f3a",
    SYNC_API_TOKEN: "canary-token-0123456789",
    DATABASE_URL: "postgres://sync:canary-password@db.internal/inventory?schema=sds",
  });

  it("describes the configuration without any secret", () => {
    const text = JSON.stringify(describeConfig(config));
    for (const secret of ["canary-api-key-7f3a", "canary-token-0123456789", "canary-password"])
      expect(text).not.toContain(secret);
    expect(text).toContain("db.internal");
    expect(describeDatabase(config.database)).toBe("postgres://sync:****@db.internal/inventory (schema sds)");
  });

  it("redacts secrets passed to it by accident, by path and by value", () => {
    const { lines, stream } = capture();
    const logger = createLogger("info", { destination: stream, secrets: configSecrets(config) });
    logger.info(
      {
        config,
        request: {
          headers: { "eq-partner-access-key": "canary-api-key-7f3a", authorization: "Bearer canary-token-0123456789" },
        },
      },
      "oops",
    );
    logger.info(
      { connectionString: config.database.kind === "postgres" ? config.database.connectionString : "" },
      "oops again",
    );
    logger.error(
      { err: new Error("connect failed for postgres://sync:canary-password@db.internal") },
      "and an error message",
    );
    const output = lines.join("");
    expect(output).toContain("[REDACTED]");
    for (const secret of ["canary-api-key-7f3a", "canary-token-0123456789", "canary-password"])
      expect(output).not.toContain(secret);
  });
});
