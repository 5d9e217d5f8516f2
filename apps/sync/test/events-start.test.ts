import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nonPublicAddressOf } from "../src/events/private-addresses.ts";
import { spawnService } from "./subprocess.ts";

const directory = mkdtempSync(join(tmpdir(), "sds-sync-events-start-"));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});
const secret = `whsec_${Buffer.from("a test secret of thirty-two bytes").toString("base64")}`;
/** This machine's name, when it resolves to a private or loopback address (as /etc/hosts usually has it). */
const privateHost = (await nonPublicAddressOf(hostname())) === undefined ? undefined : hostname();

/** Starts sds-sync with a webhook at `url` and resolves with its exit status and output. */
async function startWithWebhook(url: string) {
  const service = spawnService({
    SDS_BASE_URL: "https://sds.example.com/api/v1",
    SDS_API_KEY: "key-123",
    DATABASE_URL: `sqlite:${join(directory, "sds.db")}`,
    SYNC_WEBHOOK_URLS: `ledger=${url}`,
    SYNC_WEBHOOK_SECRET: secret,
  });
  const { code } = await service.exited;
  return { code, output: service.output.join("\n") };
}

describe("a webhook endpoint on a private or loopback address", () => {
  it("stops the start with exit status 78, naming SYNC_WEBHOOK_URLS, when it is an address", async () => {
    const { code, output } = await startWithWebhook("https://192.168.1.20/hooks");
    expect(code).toBe(78);
    expect(output).toContain("SYNC_WEBHOOK_URLS: ledger: 192.168.1.20 is a private or loopback address");
    expect(output).not.toContain(secret);
  });

  it.skipIf(privateHost === undefined)(
    "stops the start with exit status 78 when its name resolves to one",
    async () => {
      const { code, output } = await startWithWebhook(`https://${privateHost ?? ""}/hooks`);
      expect(code).toBe(78);
      expect(output).toMatch(/SYNC_WEBHOOK_URLS: ledger: .* resolves to a private or loopback address/);
    },
  );
});
