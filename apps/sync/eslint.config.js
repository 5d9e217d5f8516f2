import globals from "globals";
import tseslint from "typescript-eslint";
import { sdsEslintConfig } from "../../eslint.config.js";

// The status page's browser script is plain JavaScript (served as is): browser globals instead of
// Node's, and the type-aware rules back on, reading its own tsconfig (lib DOM, checkJs).
const browserScript = "src/status-page/browser/**/*.js";

export default tseslint.config(
  ...sdsEslintConfig,
  // Two config files now call typescript-eslint: name the root of this package's tsconfigs.
  { languageOptions: { parserOptions: { tsconfigRootDir: import.meta.dirname } } },
  ...tseslint.configs.strictTypeChecked.map((config) => ({ ...config, files: [browserScript] })),
  {
    files: [browserScript],
    languageOptions: {
      globals: {
        ...globals.browser,
        ...Object.fromEntries(
          Object.keys(globals.node)
            .filter((name) => !(name in globals.browser))
            .map((name) => [name, "off"]),
        ),
      },
      parserOptions: { projectService: true },
    },
    rules: {
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
);
