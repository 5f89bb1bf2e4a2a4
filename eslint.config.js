import neostandard, { resolveIgnoresFromGitignore } from 'neostandard';

// Fastify's projects lint with neostandard; its style rules are also our formatter
// (`npm run lint:fix`). We keep semicolons, which the code base has always used.
export default [
  ...neostandard({
    ts: true,
    semi: true,
    ignores: [...resolveIgnoresFromGitignore(), 'test-artifacts/**'],
  }),
  {
    rules: {
      // `void promise` marks a promise left to run on its own on purpose (its errors are handled
      // inside it); as an expression it is never used for its value.
      'no-void': ['error', { allowAsStatement: true }],
      // Lines a reviewer can read side by side; a message or a test's title may run on.
      '@stylistic/max-len': ['error', { code: 160, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true }],
    },
  },
];
