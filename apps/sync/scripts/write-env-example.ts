// Writes deploy/sds-sync.env.example from the configuration table: `pnpm --filter @sds/sync env-example`.
import { writeFileSync } from "node:fs";
import { renderEnvExample } from "../src/config/env-example.ts";

writeFileSync(new URL("../deploy/sds-sync.env.example", import.meta.url), renderEnvExample());
