import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', 'visualizations/', '.tmp/', 'reports/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['machines/**/*.ts'],
    rules: {
      // The charts open on their own in Stately tooling: they import xstate, each other, and
      // the types of the wire formats they carry (a type import is erased), nothing else.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!xstate$|\\./|\\.\\./machines/|\\.\\./src/schemas/).*',
              message: 'machines/ import only xstate and types',
            },
            {
              regex: '^\\.\\./src/schemas/',
              allowTypeImports: true,
              message: 'machines/ import only the types of the schemas',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/dashboard/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'document',
          'window',
          'location',
          'localStorage',
          'sessionStorage',
          'fetch',
          'TextDecoder',
          'AbortController',
          'Option',
          'confirm',
          'setTimeout',
          'setInterval',
          'clearInterval',
          'console',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: [
      'bin/**/*.js',
      'scripts/**/*.js',
      'scripts/**/*.mjs',
      'test/**/*.mjs',
      'src/tooling/demo/*.mjs',
    ],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
      },
    },
  },
);
