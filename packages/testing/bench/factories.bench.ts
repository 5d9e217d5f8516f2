// Factory and fake benchmarks: `pnpm --filter @sds/testing bench`. Timings are noisy; compare
// the ratios within one run, not numbers across machines.
import {
  buildQualifications,
  buildQuotas,
  buildSurveys,
  createFakeSupplierApi,
  API_KEY_HEADER,
  DEFAULT_API_KEY,
} from "@sds/testing";

function time<T>(label: string, runs: number, work: () => T): T {
  let result = work(); // warm-up, so the JIT has seen the code once
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    result = work();
    samples.push(performance.now() - started);
  }
  samples.sort((left, right) => left - right);
  const median = samples[Math.floor(samples.length / 2)] ?? 0;
  console.log(
    `${label.padEnd(58)} median ${median.toFixed(1).padStart(7)} ms   min ${(samples[0] ?? 0).toFixed(1).padStart(7)} ms   (${runs} runs)`,
  );
  return result;
}

async function timeAsync(label: string, runs: number, work: () => Promise<unknown>): Promise<void> {
  await work();
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  samples.sort((left, right) => left - right);
  const median = samples[Math.floor(samples.length / 2)] ?? 0;
  console.log(
    `${label.padEnd(58)} median ${median.toFixed(1).padStart(7)} ms   min ${(samples[0] ?? 0).toFixed(1).padStart(7)} ms   (${runs} runs)`,
  );
}

const coldStarted = performance.now();
buildSurveys(10_000, { seed: 99 });
console.log(
  `${"buildSurveys(10_000), cold (first call in the process)".padEnd(58)} ${(performance.now() - coldStarted).toFixed(1).padStart(14)} ms`,
);

const surveys = time("buildSurveys(10_000)", 15, () => buildSurveys(10_000, { seed: 1 }));
time("buildQualifications for 10,000 surveys", 10, () =>
  surveys.map((survey) => buildQualifications(survey, { seed: 1 })),
);
time("buildQuotas for 10,000 surveys", 10, () => surveys.map((survey) => buildQuotas(survey, { seed: 1 })));
time("createFakeSupplierApi with 10,000 surveys", 10, () =>
  createFakeSupplierApi({ suppliers: [{ supplierId: 1, apiKey: "k", surveys: 10_000 }] }),
);

const api = createFakeSupplierApi({ suppliers: [{ supplierId: 1001, apiKey: DEFAULT_API_KEY, surveys: 10_000 }] });
const headers = { [API_KEY_HEADER]: DEFAULT_API_KEY };
const listOnce = async (fetchFunction: typeof fetch, baseUrl: string): Promise<void> => {
  const response = await fetchFunction(`${baseUrl}/surveys`, { headers });
  await response.arrayBuffer();
};
await timeAsync("GET /surveys with 10,000 live surveys, in-process", 20, () =>
  listOnce(api.fetch, "http://fake.test/api/v1"),
);
const server = await api.listen();
await timeAsync("GET /surveys with 10,000 live surveys, over HTTP", 20, () => listOnce(fetch, server.baseUrl));
const first = api.listSurveys(1001)[0]?.SurveyId ?? 0;
await timeAsync("GET /surveys after one survey changed (re-serializes), HTTP", 10, async () => {
  api.updateSurvey(first, { Completes: Math.floor(Math.random() * 100) });
  await listOnce(fetch, server.baseUrl);
});
await api.close();
