// Regenerates openapi.json from the zod schemas: `pnpm --filter @sds/schemas openapi`.
// openapi.test.ts fails while the committed file differs from what this would write.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buildOpenApiDocument } from "../src/openapi.ts";

const target = fileURLToPath(new URL("../openapi.json", import.meta.url));
writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${target}`);
