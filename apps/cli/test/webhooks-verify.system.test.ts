import { createHmac, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestHome, runSds, type TestHome } from "./support/run-sds.ts";

// A Standard Webhooks request as sds-sync sends one, signed here with node:crypto from the
// spec (HMAC-SHA256 keyed with the base64-decoded secret over "id.timestamp.body"), not with
// the package the CLI checks it with.
const key = randomBytes(24);
const secret = `whsec_${key.toString("base64")}`;
const body = JSON.stringify({
  type: "outcomes.complete",
  timestamp: "2026-11-28T08:00:00.000Z",
  data: { sequence: 7, outcome: "complete", uid: "r-1", Cpi: "1.50" },
});
const sign = (id: string, timestamp: number, payload: string, withKey: Buffer = key) =>
  `v1,${createHmac("sha256", withKey).update(`${id}.${timestamp}.${payload}`).digest("base64")}`;
const now = () => Math.floor(Date.now() / 1000);

let home: TestHome;
let bodyFile: string;
beforeEach(() => {
  home = createTestHome();
  bodyFile = join(home.path, "body.json");
  writeFileSync(bodyFile, body);
});
afterEach(() => {
  home.remove();
});

const verify = (args: readonly string[], options: { env?: Record<string, string>; input?: string } = {}) =>
  runSds(["webhooks", "verify", ...args], home, {
    env: { SYNC_WEBHOOK_SECRET: secret, ...options.env },
    ...(options.input === undefined ? {} : { input: options.input }),
  });

describe("sds webhooks verify", () => {
  it("exits 0 for a request signed with the secret, from flags or from a saved header block, body from a file or stdin", async () => {
    const timestamp = now();
    const signature = `v1,bm90LXRoaXMtb25l ${sign("outcome-7", timestamp, body)}`;
    const fromFlags = await verify([
      bodyFile,
      "--id",
      "outcome-7",
      "--timestamp",
      String(timestamp),
      "--signature",
      signature,
    ]);
    expect(fromFlags).toMatchObject({ code: 0, stdout: "valid\n" });
    expect(fromFlags.stderr).toMatch(
      /^Signature valid: webhook-id outcome-7, sent \d{4}-\d\d-\d\dT.*Z \(\d+ s ago\)\.\n$/,
    );

    const headers = join(home.path, "headers.txt");
    writeFileSync(
      headers,
      `POST /hooks/sds HTTP/1.1\r\nContent-Type: application/json\r\nWebhook-Id: outcome-7\r\nWebhook-Timestamp: ${timestamp}\r\nWebhook-Signature: ${signature}\r\n\r\n`,
    );
    const fromStdin = await verify(["--headers", headers, "-o", "json"], { input: body });
    expect(fromStdin.code).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({ valid: true, id: "outcome-7", type: "outcomes.complete" });
  });

  it("exits 1 with the reason for a changed body, another secret or another id", async () => {
    const timestamp = now();
    const headerFlags = (id: string, signature: string) => [
      "--id",
      id,
      "--timestamp",
      String(timestamp),
      "--signature",
      signature,
    ];
    const good = sign("outcome-7", timestamp, body);
    writeFileSync(bodyFile, `${body}\n`);
    const changed = await verify([bodyFile, ...headerFlags("outcome-7", good)]);
    expect(changed).toMatchObject({ code: 1, stdout: "" });
    expect(changed.stderr).toMatch(
      /^error: invalid webhook signature: No matching signature found\. .*extra final line break/,
    );
    writeFileSync(bodyFile, body);
    expect(await verify([bodyFile, ...headerFlags("outcome-8", good)])).toMatchObject({ code: 1 });
    const otherSecret = await verify([
      bodyFile,
      ...headerFlags("outcome-7", sign("outcome-7", timestamp, body, randomBytes(24))),
    ]);
    expect(otherSecret.code).toBe(1);
  });

  it("refuses a request older than 5 minutes unless --ignore-age, which still checks the signature", async () => {
    const old = now() - 3600;
    const flags = ["--id", "outcome-7", "--timestamp", String(old), "--signature", sign("outcome-7", old, body)];
    const refused = await verify([bodyFile, ...flags]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/timestamp too old.*--ignore-age/);
    expect(await verify([bodyFile, ...flags, "--ignore-age"])).toMatchObject({ code: 0, stdout: "valid\n" });
    writeFileSync(bodyFile, body.replace("r-1", "r-2"));
    expect(await verify([bodyFile, ...flags, "--ignore-age"])).toMatchObject({ code: 1 });
  });

  it("answers 2 for a missing header or secret, and never prints the secret, --debug included", async () => {
    const timestamp = now();
    const missing = await verify([bodyFile, "--id", "outcome-7", "--timestamp", String(timestamp)]);
    expect(missing).toMatchObject({ code: 2 });
    expect(missing.stderr).toContain("no webhook-signature header");
    const noSecret = await verify([bodyFile, "--id", "a", "--timestamp", "1", "--signature", "v1,x"], {
      env: { SYNC_WEBHOOK_SECRET: "" },
    });
    expect(noSecret).toMatchObject({ code: 2 });
    expect(noSecret.stderr).toContain("SYNC_WEBHOOK_SECRET");
    expect(
      await verify(["-", "--secret-stdin", "--id", "a", "--timestamp", "1", "--signature", "v1,x"], { input: secret }),
    ).toMatchObject({ code: 2 });
    const results = await Promise.all([
      verify([
        bodyFile,
        "--id",
        "outcome-7",
        "--timestamp",
        String(timestamp),
        "--signature",
        sign("outcome-7", timestamp, body),
        "--debug",
      ]),
      verify([bodyFile, "--id", "outcome-7", "--timestamp", String(timestamp), "--signature", "v1,AAAA", "--debug"]),
      verify([bodyFile, "--id", "x", "--timestamp", "1", "--signature", "v1,x", "--debug"], {
        env: { SYNC_WEBHOOK_SECRET: "whsec_!!not base64!!" },
      }),
      runSds(
        [
          "webhooks",
          "verify",
          bodyFile,
          "--secret-stdin",
          "--id",
          "outcome-7",
          "--timestamp",
          String(timestamp),
          "--signature",
          "v1,AAAA",
          "--debug",
        ],
        home,
        { input: secret },
      ),
    ]);
    expect(results.map((result) => result.code)).toEqual([0, 1, 2, 1]);
    for (const result of results) {
      expect(result.stdout + result.stderr).not.toContain(key.toString("base64"));
      expect(result.stdout + result.stderr).not.toContain("!!not base64!!");
    }
  });
});
