/**
 * The fake Supplier Data Service in a process of its own, so its CPU does not count against
 * sds-sync in the benchmark. Driven over IPC by sync.bench.ts.
 */
import { createFakeSupplierApi, DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID } from "@sds/testing";

/** Messages the benchmark sends. */
export type FakeCommand =
  | { readonly type: "latency"; readonly ms: number }
  | { readonly type: "clearFaults" }
  | { readonly type: "churn"; readonly count: number; readonly round: number };

/** Messages this process answers with. */
export type FakeReply =
  { readonly type: "ready"; readonly baseUrl: string; readonly surveys: number } | { readonly type: "done" };

const surveys = Number(process.argv[2] ?? "10000");
const firstId = 100_001;
// Every survey has qualifications and no quotas: one qualification request per survey, so the
// first cycle makes exactly surveys + 1 requests, the figure the bound is computed from.
const api = createFakeSupplierApi({
  seed: 1,
  suppliers: [
    {
      supplierId: DEFAULT_SUPPLIER_ID,
      apiKey: DEFAULT_API_KEY,
      surveys: Array.from({ length: surveys }, (_, index) => ({
        survey: { SurveyId: firstId + index, Has_Qualifications: true, Has_Quotas: false },
      })),
    },
  ],
  requestLogLimit: 10,
});
const server = await api.listen();
const send = (reply: FakeReply) => process.send?.(reply);

process.on("message", (command: FakeCommand) => {
  if (command.type === "latency") api.faults.add({ kind: "latency", ms: command.ms });
  else if (command.type === "clearFaults") api.faults.clear();
  else {
    const step = Math.max(1, Math.floor(surveys / command.count));
    for (let index = 0; index < command.count; index += 1) {
      api.replaceQualifications(firstId + ((index * step + command.round) % surveys), [
        {
          QualificationId: 42,
          QualificationTypeId: 1,
          OptionIds: [command.round],
          OptionCodes: [String(command.round)],
        },
      ]);
    }
  }
  send({ type: "done" });
});
process.on("disconnect", () => {
  void server.close().then(() => process.exit(0));
});
send({ type: "ready", baseUrl: server.baseUrl, surveys });
