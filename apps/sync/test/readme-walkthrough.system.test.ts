import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureSystemTool } from "./system-tool.ts";

/**
 * The README's walkthrough ("From the inventory to earnings") run as written: every bash block of
 * that section, in order, in one shell, against the demo the README starts. The only edits are the
 * three values the README leaves to the reader (sds-sync's address, the marketplace's, the page's
 * secret), and the figures the README quotes as fixed (the match of step 1) are compared with what
 * the service answers: a README that drifts from the product fails here.
 */

const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));
const demoPath = fileURLToPath(new URL("../src/demo.ts", import.meta.url));
const cliBin = join(repositoryRoot, "apps/cli/bin");

/** The walkthrough's section of the README: from its heading to the next one. */
async function walkthroughSection(): Promise<string> {
  const readme = await readFile(join(repositoryRoot, "README.md"), "utf8");
  const start = readme.indexOf("## From the inventory to earnings");
  expect(start, "the README's walkthrough heading").toBeGreaterThan(-1);
  const end = readme.indexOf("\n## ", start + 3);
  return readme.slice(start, end === -1 ? undefined : end);
}

function bashBlocks(section: string): string[] {
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
}

interface Demo {
  readonly child: ChildProcess;
  readonly sync: string;
  readonly marketplace: string;
}

/** Starts the demo as `scripts/demo.sh` does (its defaults: 3,000 surveys, 12 respondents) on a free port. */
function startDemo(secret: string): Promise<Demo> {
  const child = spawn(process.execPath, ["--conditions=@sds/source", demoPath, "--port", "0"], {
    env: { ...process.env, SYNC_SESSION_SECRET: secret },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  return new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      if (!stdout.includes("Ctrl-C to stop.")) return;
      const sync = /^Status page: (http:\/\/127\.0\.0\.1:\d+)\/$/m.exec(stdout)?.[1];
      const marketplace = /the sandbox's marketplace at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      if (sync === undefined || marketplace === undefined)
        reject(new Error(`the demo's output lacks its addresses:\n${stdout}`));
      else resolve({ child, sync, marketplace });
    });
    child.on("exit", (code) => {
      reject(new Error(`the demo exited (${String(code)}) before it was ready:\n${stdout}\n${stderr}`));
    });
  });
}

function runBash(script: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", script], {
      cwd,
      env: { ...process.env, PATH: `${cliBin}:${process.env.PATH ?? ""}` },
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

/** The README's lines with the reader's three values filled in; each must be there exactly once. */
function fillIn(block: string, values: { sync: string; marketplace: string; secret: string }): string {
  return block
    .replace(/^SYNC=http:\/\/127\.0\.0\.1:8787$/m, `SYNC=${values.sync}`)
    .replace(/^MARKETPLACE=http:\/\/127\.0\.0\.1:…(?=\s|$)/m, `MARKETPLACE=${values.marketplace}`)
    .replace(/^export SYNC_SESSION_SECRET=…(?=\s|$)/m, `export SYNC_SESSION_SECRET=${values.secret}`);
}

/** What a command line holds before its comment (a `#` after a blank, outside quotes is rare enough here). */
const codeOf = (line: string): string => line.replace(/(^|\s)#.*$/, "");

const curl = ensureSystemTool("curl", "curl", "the README's walkthrough");
const jq = ensureSystemTool("jq", "jq", "the README's walkthrough");

describe.skipIf(!curl || !jq)("the README's walkthrough, run as written against the demo", () => {
  const secret = randomBytes(32).toString("hex");
  let demo: Demo | undefined;
  let workDirectory = "";

  beforeAll(async () => {
    workDirectory = await mkdtemp(join(tmpdir(), "sds-readme-"));
    demo = await startDemo(secret);
  }, 180_000);

  afterAll(async () => {
    demo?.child.kill("SIGINT");
    await rm(workDirectory, { recursive: true, force: true });
  });

  it("runs every command of every step, each block with exit status 0, and answers what the README shows", async () => {
    if (demo === undefined) throw new Error("the demo did not start");
    const section = await walkthroughSection();
    const blocks = bashBlocks(section).map((block) =>
      fillIn(block, { sync: demo?.sync ?? "", marketplace: demo?.marketplace ?? "", secret }),
    );
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    // Nothing left for the reader to fill in: an ellipsis only in comments.
    for (const block of blocks) for (const line of block.split("\n")) expect(codeOf(line), line).not.toContain("…");
    expect(blocks.join("\n")).toContain(`SYNC=${demo.sync}`);

    // One shell, as a reader pastes the blocks one after the other; a marker between blocks.
    const script = ["set -e", ...blocks.flatMap((block, index) => [`printf '\\n::block ${index}\\n'`, block])].join(
      "\n",
    );
    const { code, stdout, stderr } = await runBash(script, workDirectory);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    // A block's output may end without a line break (curl's JSON): the marker starts a line of its own.
    const outputs = stdout.split(/\n::block \d+\n/).slice(1);
    const outputOf = (pattern: RegExp): string => {
      const index = blocks.findIndex((block) => pattern.test(block));
      expect(index, String(pattern)).toBeGreaterThan(-1);
      return outputs[index] ?? "";
    };

    // Step 1: the match the README quotes, figure for figure.
    const quoted = /# \{"eligible": (\d+), "surveys": \[\{"SurveyId": (\d+), "Cpi": "([\d.]+)", "Ir": "(\d+)"\}/.exec(
      section,
    );
    expect(quoted, "step 1's quoted answer").not.toBeNull();
    const match = JSON.parse(outputOf(/\/v1\/match/)) as {
      eligible: number;
      surveys: { SurveyId: number; Cpi: string; Ir: string }[];
    };
    expect(match.eligible).toBe(Number(quoted?.[1]));
    expect(match.surveys[0]).toEqual({ SurveyId: Number(quoted?.[2]), Cpi: quoted?.[3], Ir: quoted?.[4] });

    // Step 2: the link, signed, into that survey.
    const link = JSON.parse(outputOf(/^curl -s -X POST "\$SYNC\/v1\/entry-links"/m)) as {
      surveyId: number;
      token: string;
      link: string;
    };
    expect(link).toMatchObject({ surveyId: Number(quoted?.[2]), token: "me-1-token" });
    expect(link.link).toMatch(/rid=me-1-token&hash=/);

    // Step 3: the marketplace's redirect to sds-sync's return, and the receiver's record.
    const step3 = outputOf(/^LINK=\$\(curl -s -X POST/m);
    expect(step3).toMatch(/^HTTP\/1\.1 302 Found/m);
    expect(step3).toContain(`location: ${demo.sync}/v1/return/`);
    expect(step3).toMatch(/"token": "me-1-token"/);

    // Step 4: the totals, with the walkthrough's entry counted.
    const totals = JSON.parse(outputOf(/loop\.totals\.lifetime/)) as { entries: number; earnings: number };
    expect(totals.entries).toBeGreaterThanOrEqual(13);
    expect(Number.isFinite(totals.earnings)).toBe(true);

    // Step 5: the history, over HTTP and through the CLI.
    const step5 = outputOf(/\/v1\/respondents\/history/);
    expect(step5).toContain('{"imported":1,"skipped":0}');

    // Step 6: a question, the survey, the return to the supplier, the session's next step.
    const step6 = outputOf(/\/v1\/sessions"/);
    expect(step6).toMatch(/"kind": "question"/);
    expect(step6).toMatch(/^location: https:\/\/panel\.example\/back\?session=/im);
    expect(step6).toMatch(/"attempts": \[\n\s+\{\n\s+"surveyId": \d+/);

    // Step 7: a start link signed with the service's secret, which the service accepts.
    const startLink = /(http:\/\/127\.0\.0\.1:\d+\/s\/start\?uid=me-5&languageId=3&ts=\d+&sig=[0-9a-f]{64})/.exec(
      outputOf(/sds link start/),
    )?.[1];
    expect(startLink, outputOf(/sds link start/)).toBeDefined();
    const started = await fetch(startLink ?? "", { redirect: "manual" });
    expect(started.status).toBe(303);
    expect(started.headers.get("location")).toMatch(/\/s\/s[\w-]+$/);
  }, 180_000);
});
