import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

// The dashboard is served by the api at /app/ (src/app/dashboard.ts); the build lands in dist/web of the repository,
// next to the compiled api, so the Docker image and `npm run local` serve what `npm run build` made.
const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/app/',
  // Vite 8 transforms TSX with Oxc: React's automatic runtime, no Babel plugin needed.
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // The CSP of /app/ allows no inline script: never inline the module preload polyfill or small assets as data: URLs of scripts.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    rolldownOptions: {
      // react-router marks its modules "use client" (for React Server Components); meaningless in a browser bundle.
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
});
