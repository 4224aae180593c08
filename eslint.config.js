const js = require('@eslint/js');
const tseslint = require('typescript-eslint');

const MODULE_FILE = { regex: '^\\.\\.?/(.*/)?[^/]+\\.module(\\.ts)?$', message: 'Only src/modules/index.ts imports a module file (<name>.module.ts): use the module through its index.ts.' };
const MODULE_INTERNALS = { regex: '^(\\.\\./)*(\\./)?modules/[^/]+/', message: "Import a module through its index ('modules/<module>'), not its internals." };

module.exports = tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-empty-object-type': 'off',
    },
  },
  // Module boundaries (architecture guide): another module is reached only through its index.ts,
  // so a module can reorganise its repo, service and serializers without breaking its callers.
  // A module's declaration (`<name>.module.ts`) is read by the collector src/modules/index.ts
  // alone, so everything a module adds to the app is derived from that one list.
  {
    // Files inside a module's folder; the registries beside the modules (index.ts, integrity.ts) are not in one.
    files: ['src/modules/*/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        // Processor objects are read only by the payment adapters, which hand modules typed events.
        paths: [{ name: 'stripe', message: 'Only src/integrations/payments reads processor objects; use its typed events (events.ts).' }],
        patterns: [
          { regex: '^\\.\\./[^./][^/]*/(?!index$)', message: "Import another module through its index ('../<module>'), not its internals." },
          { regex: '^(\\.\\./)+modules/', message: "Import another module as '../<module>'." },
          { regex: '^(\\.\\./)+integrations/payments/', message: "Use the payment port through '../../integrations/payments' (typed events, no adapter internals)." },
          MODULE_FILE,
        ],
      }],
    },
  },
  // The same from a module's subfolder (src/modules/donations/recurring/): two levels up is another module.
  {
    files: ['src/modules/*/*/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'stripe', message: 'Only src/integrations/payments reads processor objects; use its typed events (events.ts).' }],
        patterns: [
          { regex: '^\\.\\./\\.\\./[^./][^/]*/(?!index$)', message: "Import another module through its index ('../../<module>'), not its internals." },
          { regex: '^(\\.\\./)+modules/', message: "Import another module as '../../<module>'." },
          { regex: '^(\\.\\./)+integrations/payments/', message: "Use the payment port through '../../../integrations/payments' (typed events, no adapter internals)." },
          MODULE_FILE,
        ],
      }],
    },
  },
  // The app, CLI, jobs and events may use modules, through their index only.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/modules/*/**', 'src/integrations/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          MODULE_INTERNALS,
          MODULE_FILE,
        ],
      }],
    },
  },
  // The collector: the one file that imports every module file.
  {
    files: ['src/modules/index.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [MODULE_INTERNALS] }] },
  },
  // Integrations are adapters to the outside world: they never depend on the HTTP layer, the job
  // runner or the domain modules (infra/ is shared by everyone).
  {
    files: ['src/integrations/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { regex: '^(\\.\\./)+(http|jobs|modules)(/|$)', message: 'Integrations must not import http/, jobs/ or modules/ (use infra/, or move the code to its caller).' },
        ],
      }],
    },
  },
  { files: ['**/*.js'], languageOptions: { globals: { module: 'writable', require: 'readonly', __dirname: 'readonly' } } },
);
