import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted answer: a status, headers and a body, or a connection dropped without one. */
export type ScriptedAnswer =
  | { readonly status: number; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> }
  | { readonly drop: true }
  | { readonly hang: true };

/** A request the server received. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

/** A tiny node:http server that answers each request with the next scripted answer (the last one repeats). */
export interface ScriptedServer {
  readonly url: string;
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

/** Starts a {@link ScriptedServer} on port 0. */
export async function startScriptedServer(answers: readonly ScriptedAnswer[]): Promise<ScriptedServer> {
  const received: ReceivedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      const answer = answers[Math.min(received.length, answers.length) - 1] ?? { status: 500 };
      if ("drop" in answer) {
        request.socket.destroy();
        return;
      }
      if ("hang" in answer) {
        hanging.add(response);
        return;
      }
      const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body ?? {});
      response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
