import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { AccountSettings, UNSIGNED_WARNING_EVERY_MS } from "../src/loop/account-settings.ts";
import { buildSupplierAccount } from "@sds/testing";
import { startServiceHarness } from "./service-harness.ts";

/** A logger whose lines the test reads. */
function recordingLogger(): { logger: pino.Logger; messages: string[] } {
  const messages: string[] = [];
  const logger = pino(
    { level: "info" },
    { write: (line: string) => messages.push((JSON.parse(line) as { msg: string }).msg) },
  );
  return { logger, messages };
}

const unsignedLines = (messages: readonly string[]) =>
  messages.filter((message) => message.startsWith("outcomes are accepted unsigned")).length;

describe("the warning that outcomes are accepted unsigned", () => {
  it("is logged once over a run of several cycles, not at every account read", async () => {
    const { logger, messages } = recordingLogger();
    const harness = await startServiceHarness({ logger });
    try {
      for (let cycle = 0; cycle < 4; cycle++) {
        const response = await harness.request("/v1/sync/run", { method: "POST" });
        expect(response.status).toBe(200);
        // The account is read again after every cycle; the read of this one is awaited here.
        await harness.service.loop.account.refresh();
      }
      expect(messages.filter((message) => message.startsWith("sync cycle succeeded")).length).toBe(5);
      expect(unsignedLines(messages)).toBe(1);
    } finally {
      await harness.close();
    }
  });

  it("is repeated at most once an hour while the account stays unsigned, and at once after it was signed meanwhile", async () => {
    const { logger, messages } = recordingLogger();
    let now = 0;
    const unsigned = buildSupplierAccount({
      overrides: {
        OutgoingEncryption: { Enabled: false, Algorithm: "SHA256", QueryParameter: null, EncryptionKey: null },
      },
    });
    let account = unsigned;
    const settings = new AccountSettings({ fetchAccount: () => Promise.resolve(account), logger, now: () => now });
    await settings.refresh();
    expect(unsignedLines(messages)).toBe(1);
    for (let read = 0; read < 10; read++) {
      now += UNSIGNED_WARNING_EVERY_MS / 20;
      await settings.refresh();
    }
    expect(unsignedLines(messages)).toBe(1);
    now += UNSIGNED_WARNING_EVERY_MS / 2;
    await settings.refresh();
    expect(unsignedLines(messages)).toBe(2);

    account = buildSupplierAccount({
      overrides: {
        OutgoingEncryption: {
          Enabled: true,
          Algorithm: "SHA256",
          QueryParameter: "hash",
          EncryptionKey: "0123456789abcdef",
        },
      },
    });
    await settings.refresh();
    account = unsigned;
    now += 1000;
    await settings.refresh();
    expect(unsignedLines(messages)).toBe(3);
  });
});
