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
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!xstate$|\\./|\\.\\./machines/).*',
              message: 'machines/ import only xstate and types',
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
