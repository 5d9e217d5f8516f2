/*
 * The projects of the end-to-end release test: each is what another team would write, in an
 * empty directory outside the workspace, installing the published packages by semver range.
 */

/** Strict TypeScript settings a careful consumer uses (ours, minus the repository's conditions). */
export const strictTsconfig = JSON.stringify(
  {
    compilerOptions: {
      target: "ES2023",
      lib: ["ES2023", "DOM", "DOM.Iterable"],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      verbatimModuleSyntax: true,
      erasableSyntaxOnly: true,
      allowImportingTsExtensions: true,
      noEmit: true,
      skipLibCheck: false,
      types: [],
    },
    include: ["*.ts"],
  },
  null,
  2,
);

/**
 * Uses only `@sds/client`: the types a call takes and returns come from the client itself, since
 * a consumer that installed nothing else cannot import `@sds/schemas` under pnpm's layout.
 */
export const clientConsumer = `import { createClient, isNotFoundError, type Survey, type SurveyListResponse } from "@sds/client";

declare const process: { env: Record<string, string | undefined>; exitCode: number };

const sds = createClient({ baseUrl: process.env["SDS_BASE_URL"] ?? "", apiKey: process.env["SDS_API_KEY"] ?? "" });
const list: SurveyListResponse = await sds.surveys.list();
const first: Survey | undefined = list.Surveys[0];
let missing = "found";
try {
  await sds.surveys.qualifications(999_999_999);
} catch (error) {
  missing = isNotFoundError(error) ? "NotFoundError" : String(error);
}
console.log(JSON.stringify({ surveys: list.Surveys.length, firstId: first?.SurveyId ?? null, missing }));
`;

/** A Vitest test of another team, on the in-process fake of `@sds/testing`. */
export const testingConsumer = `import { createFakeSupplierApi, DEFAULT_API_KEY } from "@sds/testing";
import { afterEach, expect, it } from "vitest";

const api = createFakeSupplierApi({ seed: 3 });
afterEach(async () => {
  await api.close();
});

it("lists the fake's surveys over real HTTP", async () => {
  const server = await api.listen();
  const response = await fetch(\`\${server.baseUrl}/surveys\`, { headers: { "EQ-PARTNER-ACCESS-KEY": DEFAULT_API_KEY } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { Surveys: unknown[] };
  expect(body.Surveys.length).toBeGreaterThan(0);
});
`;

/** package.json of an empty consumer project. */
export const consumerManifest = (name: string) =>
  `${JSON.stringify({ name, private: true, type: "module" }, null, 2)}\n`;

/** .npmrc sending `@sds/*` to the test's registry and everything else to the usual one. */
export const scopedNpmrc = (registryUrl: string) =>
  `@sds:registry=${registryUrl}\n${registryUrl.replace(/^https?:/, "")}:_authToken=release-test\n`;

/** Verdaccio's configuration: local storage, anyone may publish `@sds/*`, no uplink. */
export const verdaccioConfig = (storage: string) => `storage: ${JSON.stringify(storage)}
auth:
  htpasswd:
    file: ${JSON.stringify(`${storage}/htpasswd`)}
uplinks: {}
packages:
  "@sds/*":
    access: $all
    publish: $all
    unpublish: $all
  "**":
    access: $all
web:
  enable: false
log: { type: stdout, format: pretty, level: warn }
`;
