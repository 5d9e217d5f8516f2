import globals from "globals";
import tseslint from "typescript-eslint";
import { sdsEslintConfig } from "../../eslint.config.js";

// Dialect differences live in the dialect objects (src/database/*-dialect.ts, kysely's Dialect):
// statements and programs ask the SqlDialect, they never compare a dialect's name. The
// configuration (which parses and prints DATABASE_URL) and `onDatabase` (which picks a driver)
// name a database kind; they write no SQL.
const dialectBranch = "Ask the dialect object (src/database/sql-dialect.ts) instead of comparing a dialect's name.";
const dialectObjects = [
  "src/database/sqlite-dialect.ts",
  "src/database/postgres-dialect.ts",
  "src/database/database-config.ts",
  "src/config/**",
];

// The status page's browser script is plain JavaScript (served as is): browser globals instead of
// Node's, and the type-aware rules back on, reading its own tsconfig (lib DOM, checkJs).
const browserScript = "src/status-page/browser/**/*.js";

export default tseslint.config(
  ...sdsEslintConfig,
  // Two config files now call typescript-eslint: name the root of this package's tsconfigs.
  { languageOptions: { parserOptions: { tsconfigRootDir: import.meta.dirname } } },
  {
    files: ["src/**/*.ts"],
    ignores: dialectObjects,
    rules: {
      "no-restricted-syntax": [
        "error",
        { selector: "ExportDefaultDeclaration", message: "Use named exports (default exports only in config files)." },
        {
          selector: "BinaryExpression[operator=/^[!=]==?$/] > Literal[value=/^(sqlite|postgres)$/]",
          message: dialectBranch,
        },
        { selector: "SwitchCase > Literal.test[value=/^(sqlite|postgres)$/]", message: dialectBranch },
      ],
    },
  },
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
