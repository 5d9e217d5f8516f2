import { createConnection, createServer, type AddressInfo, type Socket } from "node:net";

/** A TCP proxy in front of a NATS server that loses one chosen message, as a connection dying under it would. */
export interface DroppingProxy {
  readonly url: string;
  /** The ids of the messages it dropped. */
  readonly dropped: readonly string[];
  close(): Promise<void>;
}

const CRLF = Buffer.from("\r\n");

/**
 * Starts a proxy on a free port that forwards the NATS protocol both ways but drops the first
 * `HPUB` whose headers carry `Nats-Msg-Id: <msgId>` (each id in `drop` once): the server never
 * sees it, so its publish waits for an acknowledgement that never comes, while the messages
 * after it go through.
 */
export async function startDroppingProxy(natsUrl: string, drop: readonly string[]): Promise<DroppingProxy> {
  const target = new URL(natsUrl);
  const pending = new Set(drop);
  const dropped: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    sockets.add(client).add(upstream);
    upstream.pipe(client);
    let buffered = Buffer.alloc(0);
    client.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const lineEnd = buffered.indexOf(CRLF);
        if (lineEnd === -1) return;
        const line = buffered.subarray(0, lineEnd).toString("latin1");
        const words = line.split(" ");
        // HPUB <subject> [reply] <header bytes> <total bytes>: the payload follows, then CRLF.
        const total = words[0]?.toUpperCase() === "HPUB" ? Number(words.at(-1)) : undefined;
        const length = total === undefined ? lineEnd + 2 : lineEnd + 2 + total + 2;
        if (buffered.length < length) return;
        const frame = buffered.subarray(0, length);
        buffered = buffered.subarray(length);
        const headers =
          total === undefined ? "" : frame.subarray(lineEnd + 2, lineEnd + 2 + Number(words.at(-2))).toString("latin1");
        const id = /^Nats-Msg-Id:\s*(\S+)\r$/im.exec(headers)?.[1];
        if (id !== undefined && pending.delete(id)) {
          dropped.push(id);
          continue;
        }
        upstream.write(frame);
      }
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `nats://127.0.0.1:${(server.address() as AddressInfo).port}`,
    dropped,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
