// Preloaded with `node --import` by test/startup.system.test.ts: prints the URL of every module the
// process resolves to stderr, one `module-load URL` line each, so a test can see what a
// command loaded.
import { registerHooks } from "node:module";
import { writeSync } from "node:fs";

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    writeSync(2, `module-load ${resolved.url}\n`);
    return resolved;
  },
});
