// ESLint for the browser client (plain ES modules served as they are) and its Node tests.
// Run by scripts/lint-js (a step of scripts/test); see docs/browser.md.
import js from "@eslint/js";
import globals from "globals";

export default [
  // Only the client, the desk and their tests: the venv and the built site are not ours to lint here.
  { ignores: [".venv/**", "site/**", "build/**", "dist/**"] },
  {
    files: ["src/chinese_poker/server/static/js/**/*.js", "src/chinese_poker/server/static/{app,chart,fairness}.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
    rules: {
      ...js.configs.recommended.rules,
      // "_" marks a parameter kept for its position in a callback's signature.
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrors: "none" }],
      // Markup reaches the page only through util.js's setHTML/replaceHTML/appendHTML,
      // which take html`` (escaped by default), never a string built by hand.
      "no-restricted-syntax": ["error",
        { selector: "AssignmentExpression[left.property.name=/^(innerHTML|outerHTML)$/]", message: "write markup with setHTML/replaceHTML(el, html`...`) from util.js" },
        { selector: "CallExpression[callee.property.name=/^(insertAdjacentHTML|write|writeln)$/]", message: "add markup with appendHTML(el, html`...`) from util.js" },
      ],
    },
  },
  {
    files: ["src/chinese_poker/server/static/js/util.js"],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    // The study desk (/score, /study) and its service worker: recommended rules. Its pages
    // build markup as strings, every value through common.js's esc().
    files: ["src/chinese_poker/server/static/desk/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser, ...globals.serviceworker } },
    rules: {
      ...js.configs.recommended.rules,
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    files: ["tests/js/**/*.mjs", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node } },
    rules: { ...js.configs.recommended.rules },
  },
];
