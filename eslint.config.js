// Shared flat config for every package: type-aware, strict, and loud about dead disables.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

export const sdsEslintConfig = tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "**/.turbo/**", "**/*.d.ts"] },
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true },
    },
    rules: {
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-restricted-syntax": [
        "error",
        { selector: "ExportDefaultDeclaration", message: "Use named exports (default exports only in config files)." },
      ],
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex:
                "^(fs|path|os|http|https|url|util|crypto|child_process|stream|events|net|zlib|readline|process|assert|timers|worker_threads)(/.*)?$",
              message: "Use the node: protocol for built-ins.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["**/*.config.*", "**/eslint.config.js"],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    files: ["**/*.js"],
    ...tseslint.configs.disableTypeChecked,
  },
);

export default sdsEslintConfig;
