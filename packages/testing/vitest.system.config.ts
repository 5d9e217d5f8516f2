import { systemVitestConfig } from "../../vitest.shared.ts";

export default systemVitestConfig;
