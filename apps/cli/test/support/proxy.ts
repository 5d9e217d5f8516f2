import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { FakeSupplierApi } from "@sds/testing";

/** How a {@link startProxy} changes what the fake answers. */
export interface ProxyRewrite {
  /** Replaces the JSON body of responses to this path (after `/api/v1`). */
  readonly body?: (path: string, body: unknown) => unknown;
  /** The Date header to send instead of the real time. */
  readonly date?: () => Date;
}

/**
 * Serves the fake (in-process) over HTTP with its answers changed, for what the fake itself
 * will not do: send a wrong Date header, or a body that breaks the schema.
 */
export async function startProxy(
  api: FakeSupplierApi,
  rewrite: ProxyRewrite,
): Promise<{ readonly baseUrl: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    void (async () => {
      const path = request.url ?? "/";
      const answer = await api.fetch(`http://fake.test${path}`, {
        method: request.method ?? "GET",
        headers: request.headers as Record<string, string>,
      });
      let body = Buffer.from(await answer.arrayBuffer());
      if (rewrite.body !== undefined)
        body = Buffer.from(
          JSON.stringify(rewrite.body(path.replace(/^\/api\/v1/, ""), JSON.parse(body.toString("utf8")))),
        );
      const headers = Object.fromEntries([...answer.headers].filter(([name]) => name !== "content-length"));
      if (rewrite.date !== undefined) {
        response.sendDate = false;
        headers.date = rewrite.date().toUTCString();
      }
      response.writeHead(answer.status, headers);
      response.end(body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
