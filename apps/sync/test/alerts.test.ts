import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import { ensureSystemTool } from "./system-tool.ts";

const run = promisify(execFile);
const deploy = fileURLToPath(new URL("../deploy/", import.meta.url));
const promtool = ensureSystemTool("promtool", "prometheus", "the Prometheus alert rule checks");

describe.skipIf(!promtool)("the Prometheus alert rules (deploy/alerts.yml)", () => {
  it("pass promtool check rules", async () => {
    const { stdout } = await run(promtool ?? "promtool", ["check", "rules", "alerts.yml"], { cwd: deploy });
    expect(stdout).toMatch(/SUCCESS: 12 rules found/);
  });

  it("have a unit test each that expects the alert to fire (SdsSyncAbsent included: every replica down)", () => {
    const rules = readFileSync(`${deploy}alerts.yml`, "utf8");
    const tests = readFileSync(`${deploy}alerts.test.yml`, "utf8");
    const alerts = [...rules.matchAll(/^\s+- alert: (\w+)$/gm)].map((match) => match[1]);
    expect(alerts).toContain("SdsSyncAbsent");
    const firing = new Set(
      [...tests.matchAll(/alertname: (\w+)\n\s+exp_alerts:\n\s+- exp_labels/g)].map((match) => match[1]),
    );
    for (const alert of alerts) expect(firing.has(alert), `${alert} has no test that expects it to fire`).toBe(true);
  });

  it("pass their unit tests (promtool test rules deploy/alerts.test.yml)", async () => {
    const { stdout } = await run(promtool ?? "promtool", ["test", "rules", "alerts.test.yml"], { cwd: deploy });
    expect(stdout).toMatch(/SUCCESS/);
  });
});

describe("the metrics the alert rules watch", () => {
  let harness: ServiceHarness;
  beforeAll(async () => {
    harness = await startServiceHarness({ surveys: 5 });
  });
  afterAll(async () => {
    await harness.close();
  });

  it("are the ones the service exports, with the labels the rules select on", async () => {
    const rules = readFileSync(`${deploy}alerts.yml`, "utf8");
    const exposition = await (await harness.request("/metrics")).text();
    const exported = new Set([...exposition.matchAll(/^# TYPE (\w+) /gm)].map((match) => match[1]));
    const watched = new Set([...rules.matchAll(/\bsds_sync_\w+/g)].map((match) => match[0]));
    expect(watched.size).toBeGreaterThanOrEqual(6);
    for (const metric of watched)
      expect(exported.has(metric), `${metric} is watched by a rule but not exported`).toBe(true);
    for (const [, metric, label] of rules.matchAll(/\b(sds_sync_\w+)\{(\w+)=/g)) {
      expect(exposition, `${metric} has no ${label} label`).toMatch(new RegExp(`^${metric}\\{[^}]*\\b${label}="`, "m"));
    }
  });
});
