import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.local/**', 'scripts/**', 'eslint.config.mjs'] },
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // The dashboard (web/): browser code with its own compiler settings (DOM, JSX, bundler resolution).
    files: ['web/src/**/*.ts', 'web/src/**/*.tsx'],
    languageOptions: {
      parserOptions: { project: './web/tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // The ground floor: common/ imports no feature (type imports included). See docs/architecture.md.
    files: ['src/common/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/modules/**', '**/app/**'], message: 'src/common/ must not import from src/modules/ or src/app/' }] },
      ],
    },
  },
);
