import { createServer, type AddressInfo } from "node:net";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { StoreError } from "../common/errors.ts";
import pg from "pg";
import { DatabaseUnreachableError, isDatabaseUnreachable, retryWhileUnreachable } from "./start-retry.ts";

function recordingLogger(): { logger: pino.Logger; lines: { msg: string; attempt?: number }[] } {
  const lines: { msg: string; attempt?: number }[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as { msg: string }) });
  return { logger, lines };
}

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

/** A port nothing listens on (taken, then freed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  return port;
}

describe("waiting for the database at start", () => {
  it("retries an unreachable database with growing pauses, a log line per attempt, until it answers", async () => {
    const { logger, lines } = recordingLogger();
    let clock = 0;
    const pauses: number[] = [];
    let attempts = 0;
    const opened = await retryWhileUnreachable(
      () => {
        attempts += 1;
        return attempts < 4
          ? Promise.reject(new StoreError("cannot open", { cause: refused() }))
          : Promise.resolve("store");
      },
      {
        timeoutMs: 60_000,
        logger,
        database: "postgres://sync:****@db/x",
        now: () => clock,
        pause: (ms) => {
          pauses.push(ms);
          clock += ms;
          return Promise.resolve();
        },
      },
    );
    expect(opened).toBe("store");
    expect(pauses).toEqual([1000, 2000, 4000]);
    expect(lines.map((line) => line.msg)).toEqual([
      "the database cannot be reached (attempt 1): cannot open; retrying in 1.0 s",
      "the database cannot be reached (attempt 2): cannot open; retrying in 2.0 s",
      "the database cannot be reached (attempt 3): cannot open; retrying in 4.0 s",
      "the database is reachable",
    ]);
  });

  it("gives up once the timeout has passed, with an error that says how long it tried", async () => {
    const { logger, lines } = recordingLogger();
    let clock = 0;
    const failure = retryWhileUnreachable(() => Promise.reject(refused()), {
      timeoutMs: 20_000,
      logger,
      database: "postgres://db/x",
      now: () => clock,
      pause: (ms) => {
        clock += ms;
        return Promise.resolve();
      },
    });
    await expect(failure).rejects.toBeInstanceOf(DatabaseUnreachableError);
    await expect(failure).rejects.toThrow(
      /could not be reached \(6 attempts in 20 s, SYNC_DATABASE_START_TIMEOUT_SECONDS\)/,
    );
    // 1 + 2 + 4 + 8 s, then the 5 s left: the last attempt is at the deadline.
    expect(lines.map((line) => line.attempt)).toEqual([1, 2, 3, 4, 5]);
  });

  it("fails at once when the database answers with a refusal (not a reason to wait)", async () => {
    const { logger } = recordingLogger();
    let attempts = 0;
    const refusal = Object.assign(new Error('password authentication failed for user "sync"'), { code: "28P01" });
    await expect(
      retryWhileUnreachable(
        () => {
          attempts += 1;
          return Promise.reject(new StoreError("cannot open", { cause: refusal }));
        },
        { timeoutMs: 60_000, logger, database: "postgres://db/x" },
      ),
    ).rejects.toThrow("cannot open");
    expect(attempts).toBe(1);
    expect(isDatabaseUnreachable(new StoreError("x", { cause: refusal }))).toBe(false);
  });

  it("recognises the failure of a real PostgreSQL connection to a port nothing listens on as unreachable", async () => {
    const port = await closedPort();
    const { logger } = recordingLogger();
    const connect = async () => {
      const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/test` });
      await client.connect();
      return client;
    };
    const failure = retryWhileUnreachable(connect, {
      timeoutMs: 0,
      logger,
      database: `postgres://127.0.0.1:${port}/test`,
    });
    await expect(failure).rejects.toBeInstanceOf(DatabaseUnreachableError);
  });
});
