import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const demoPath = fileURLToPath(new URL("../src/demo.ts", import.meta.url));
const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));

function runDemo(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--conditions=@sds/source", demoPath, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("exit", (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

describe("the demo (the README's main job)", () => {
  it("syncs the sandbox once, prints what it synced and where to query it, and exits 0 with --once", async () => {
    const { code, stdout, stderr } = await runDemo(["--once", "--port", "0", "--surveys", "120"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(/First sync cycle succeeded in [\d.]+ s:/);
    expect(stdout).toContain("120 live surveys listed, 120 stored");
    expect(stdout).toMatch(/curl 'http:\/\/127\.0\.0\.1:\d+\/v1\/surveys\?limit=5'/);
    expect(stdout).toMatch(/\/v1\/changes\?after=120&wait=30/);
  }, 60_000);

  it("walks respondents through sessions at start: questions, surveys, returns and re-routes, and the summary shows sessions, questions, attempts, completes and earnings", async () => {
    const { code, stdout, stderr } = await runDemo([
      "--once",
      "--port",
      "0",
      "--surveys",
      "120",
      "--respondents",
      "12",
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /The respondent loop \(sessions; the sandbox's marketplace at http:\/\/127\.0\.0\.1:\d+ calls sds-sync's receiver at http:\/\/127\.0\.0\.1:\d+\/v1\/outcomes\/… and sends respondents back to http:\/\/127\.0\.0\.1:\d+\/v1\/return\/…\):/,
    );
    // One line per session: its questions, each survey it took with what came back, and how it ended.
    const sessions = stdout.split("\n").filter((line) => /^ {2}demo-\d+: \d+ questions?, /.test(line));
    expect(sessions).toHaveLength(12);
    for (const line of sessions)
      expect(line).toMatch(
        /: \d+ questions?, (no survey|\d+ (complete|terminate|overquota|security|drop)(, \d+ (complete|terminate|overquota|security|drop))*) → (completed|no-survey|attempts|excluded)$/,
      );
    // A terminate or overquota is followed by another survey in the same session: the re-route.
    expect(sessions.some((line) => /\d+ (terminate|overquota), \d+ /.test(line))).toBe(true);
    const attemptsInLines = sessions
      .map(
        (line) =>
          (/: \d+ questions?, (.*) → /.exec(line)?.[1] ?? "").split(", ").filter((part) => /^\d+ /.test(part)).length,
      )
      .reduce((sum, count) => sum + count, 0);
    const summary =
      /^ {2}(\d+) sessions: (\d+) questions? asked, (\d+) attempts, (\d+) completed; earnings ([\d.]+)$/m.exec(stdout);
    expect(summary, stdout).not.toBeNull();
    const [, sessionCount, questions, attempts, completed, earnings] = (summary ?? []).map(Number);
    expect(sessionCount).toBe(12);
    expect(questions).toBeGreaterThan(0);
    expect(attempts).toBe(attemptsInLines);
    expect(completed).toBe(sessions.filter((line) => line.endsWith("→ completed")).length);
    expect(completed).toBeGreaterThan(0);
    expect(earnings).toBeGreaterThan(0);
    // Every attempt reached the receiver too (the marketplace's S2S call): none left pending, one entry each.
    const loop = /^ {2}(\d+) entries: (\d+) completes, \d+ terminates, \d+ over quota, (\d+) pending; /m.exec(stdout);
    expect(loop, stdout).not.toBeNull();
    const [, entries, completes, pending] = (loop ?? []).map(Number);
    expect(entries).toBe(attempts);
    expect(completes).toBe(completed);
    expect(pending).toBe(0);
    // The uid keeps a respondent out of a survey they entered.
    expect(stdout).toMatch(/demo-1 matched again: survey \d+ is out \(already-entered: /);
    // --once: the service stops next, so neither its status page nor the walk by hand is offered.
    expect(stdout).not.toMatch(/^Status page:/m);
    expect(stdout).toContain("(--once: sds-sync stops now; run the demo without --once to keep it running");
  }, 60_000);

  it("runs the inventory side alone with --no-marketplace: no respondents, and no status page URL with --once", async () => {
    const { code, stdout, stderr } = await runDemo(["--once", "--port", "0", "--surveys", "30", "--no-marketplace"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).not.toContain("The respondent loop");
    expect(stdout).not.toMatch(/^Status page:/m);
  }, 60_000);

  it("says in one line how to fix a port that is taken, without a stack trace", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const { code, stderr, stdout } = await runDemo(["--once", "--port", String(port), "--surveys", "5"]);
      expect(code).toBe(1);
      // Checked before the sandbox is built (seconds with the default 3,000 surveys).
      expect(stdout).not.toContain("Starting the sandbox");
      expect(stderr).toBe(
        `demo: port ${port} is already in use: stop what listens there, or run the demo with --port N (--port 0 picks a free one)\n`,
      );
    } finally {
      blocker.close();
    }
  }, 30_000);

  it("refuses a malformed option with its usage and exit status 64", async () => {
    const { code, stderr } = await runDemo(["--surveys", "many"]);
    expect(code).toBe(64);
    expect(stderr).toMatch(/--surveys must be a whole number/);
    expect(stderr).toContain("Usage:");
  }, 30_000);

  it("prints a start link of the respondent page while it runs: the link starts a session", async () => {
    const child = spawn(process.execPath, ["--conditions=@sds/source", demoPath, "--port", "0", "--surveys", "60"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    let stdout = "";
    const link = await new Promise<string>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
        const found = /^Respondent page: .*\n {2}(http:\/\/127\.0\.0\.1:\d+\/s\/start\?\S+)$/m.exec(stdout);
        if (found?.[1] !== undefined) resolve(found[1]);
      });
    });
    try {
      const started = await fetch(link, { redirect: "manual" });
      expect(started.status).toBe(303);
      expect(started.headers.get("location")).toMatch(/^\/s\/[A-Za-z0-9_-]{22,}$/);
    } finally {
      child.kill("SIGINT");
    }
    expect(await exited).toBe(0);
  }, 60_000);

  it("says a cycle that its own Ctrl-C cut short was aborted by shutdown, not failed, and exits 0 having cleaned up", async () => {
    const child = spawn(
      process.execPath,
      ["--conditions=@sds/source", demoPath, "--port", "0", "--surveys", "20000", "--verbose"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.on("exit", (code, signal) => {
        resolve({ code, signal });
      });
    });
    // The first cycle starts as soon as the replica leads; listing and fetching 20,000 surveys takes seconds.
    await new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
        if (stdout.includes('"msg":"this replica leads: it runs the sync cycles"')) resolve();
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill("SIGINT");
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(stderr).toBe("");
    expect(stdout).toContain("\nStopping…\n");
    expect(stdout).toContain("\ncycle aborted by shutdown; nothing of it was committed\n");
    expect(stdout).not.toMatch(/cycle failed/);
    const engineLine = stdout.split("\n").find((line) => line.includes('"msg":"cycle aborted by shutdown'));
    expect(engineLine).toMatch(/^\{"level":30,/);
    const store = /"database":"sqlite:([^"]+)"/.exec(stdout)?.[1];
    expect(store).toBeDefined();
    expect(existsSync(dirname(store ?? "/")), "the temporary store is removed").toBe(false);
  }, 60_000);

  it("builds without turbo's banner when run as the README says (bash scripts/demo.sh)", async () => {
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn("bash", ["scripts/demo.sh", "--once", "--port", "0", "--surveys", "30"], {
        cwd: repositoryRoot,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      child.on("exit", (code) => {
        resolve({ code, stdout, stderr });
      });
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/First sync cycle succeeded in [\d.]+ s:/);
    expect(result.stdout).toMatch(/^ {2}\d+ entries: [1-9]\d* completes, /m);
    for (const banner of ["turbo", "Packages in scope", "Tasks:", "Cached:"])
      expect(result.stdout + result.stderr).not.toContain(banner);
  }, 300_000);
});
