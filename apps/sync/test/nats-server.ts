import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager, type StoredMsg } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { ensureSystemTool } from "./system-tool.ts";

/**
 * The nats-server binary (Debian's `nats-server`), installed under CI when missing; outside CI a
 * missing binary skips the tests that need it, with a message saying so.
 */
export const natsServerBinary = ensureSystemTool(
  "nats-server",
  "nats-server",
  "the NATS JetStream tests of events out",
);

/** A `nats-server -js` a test started for itself on a free port, with its own store directory. */
export interface TestNatsServer {
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM), keeping its store, as an outage would. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same store. */
  restart(): Promise<void>;
  /** Stops it and removes its store. */
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => {
      resolve(false);
    });
  });
}

/** Options of {@link startNatsServer}. */
export interface TestNatsServerOptions {
  /** Lines of a configuration file the server also reads (`authorization { … }`); address, port and store come from flags. */
  readonly config?: string;
}

/** Starts `nats-server -js` on a free port with a fresh store directory. */
export async function startNatsServer(options: TestNatsServerOptions = {}): Promise<TestNatsServer> {
  if (natsServerBinary === undefined) throw new Error("nats-server is missing");
  const binary = natsServerBinary;
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), "sds-sync-nats-"));
  const configArguments: string[] = [];
  if (options.config !== undefined) {
    const configFile = join(directory, "nats-server.conf");
    writeFileSync(configFile, options.config);
    configArguments.push("-c", configFile);
  }
  let child: ChildProcess | undefined;
  const start = async () => {
    const flags = ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", join(directory, "store")];
    const started = spawn(binary, [...configArguments, ...flags], { stdio: "ignore" });
    child = started;
    const deadline = Date.now() + 15_000;
    while (!(await accepts(port))) {
      if (started.exitCode !== null) throw new Error(`nats-server exited with ${started.exitCode}`);
      if (Date.now() > deadline) throw new Error("nats-server did not listen within 15 s");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGTERM");
    await exited;
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    stop,
    restart: start,
    async close() {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** One message of the stream as a consumer sees it. */
export interface StreamMessage {
  readonly streamSequence: number;
  readonly subject: string;
  readonly msgId: string | undefined;
  readonly body: Record<string, unknown>;
}

/** Every message of `stream`, in stream order (read by sequence, like a consumer starting at the beginning). */
export async function readStream(url: string, stream: string): Promise<StreamMessage[]> {
  const connection = await connect({ servers: url });
  try {
    const manager = await jetstreamManager(connection);
    let info;
    try {
      info = await manager.streams.info(stream);
    } catch {
      return [];
    }
    const messages: StreamMessage[] = [];
    for (let sequence = info.state.first_seq; sequence <= info.state.last_seq && info.state.messages > 0; sequence++) {
      const message: StoredMsg | null = await manager.streams.getMessage(stream, { seq: sequence });
      if (message === null) continue;
      messages.push({
        streamSequence: message.seq,
        subject: message.subject,
        msgId: message.header.get("Nats-Msg-Id") || undefined,
        body: message.json<Record<string, unknown>>(),
      });
    }
    return messages;
  } finally {
    await connection.close();
  }
}
