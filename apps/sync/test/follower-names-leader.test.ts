import { DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID, createFakeSupplierApi, type FakeSupplierApi } from "@sds/testing";
import { ErrorBody } from "@sds/sync-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

const available = await postgresAvailable();

describe.skipIf(!available)("a follower on PostgreSQL", () => {
  const schema = freshSchemaName("sds_sync_follower");
  let api: FakeSupplierApi;
  let leader: ServiceHarness;
  let follower: ServiceHarness;

  beforeAll(async () => {
    api = createFakeSupplierApi({
      suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 5 }],
    });
    const database = { kind: "postgres", connectionString: testDatabaseUrl, schema } as const;
    leader = await startServiceHarness({ api, database, replicaId: "replica-a" });
    follower = await startServiceHarness({ api, database, replicaId: "replica-b", followerPollMs: 100 });
  }, 60_000);
  afterAll(async () => {
    await follower.close();
    await leader.close();
    await api.close();
    await dropSchema(schema);
  });

  it("names the replica that leads, with the address of its API, in /v1/sync/status", async () => {
    const leaderPort = new URL(leader.service.url).port;
    const status = async () =>
      (await (await follower.request("/v1/sync/status")).json()) as {
        replica: { leader: boolean; leaderId?: string; leaderAddress?: string };
        currency: string;
      };
    await waitFor(async () => (await status()).replica.leaderId !== undefined);
    expect((await status()).replica).toMatchObject({
      leader: false,
      leaderId: "replica-a",
      leaderAddress: `http://127.0.0.1:${leaderPort}`,
    });
    expect((await status()).currency).toBe("USD");
    const own = (await (await leader.request("/v1/sync/status")).json()) as { replica: Record<string, unknown> };
    expect(own.replica).toMatchObject({ leader: true });
    expect(own.replica).not.toHaveProperty("leaderId");
  });

  it("answers POST /v1/sync/run with 409 naming the leader, its id and address as fields of the error", async () => {
    const response = await follower.request("/v1/sync/run", { method: "POST" });
    expect(response.status).toBe(409);
    const body = (await response.json()) as ErrorBody;
    expect(ErrorBody.parse(body)).toEqual(body);
    const { error } = body;
    expect(error).toMatchObject({
      code: "not_leader",
      leaderId: "replica-a",
      leaderAddress: `http://127.0.0.1:${new URL(leader.service.url).port}`,
    });
    expect(error.message).toContain("replica replica-a at http://127.0.0.1:");
    expect(error.message).toContain("send POST /v1/sync/run there");
  });
});
