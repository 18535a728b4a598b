import { fileURLToPath, URL } from 'node:url';

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// The built app is served by Django at `/` (every non-/api path returns index.html),
// so assets use the absolute base `/` and the router is a BrowserRouter.
export default defineConfig({
  base: '/',
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: {
    proxy: {
      '/api': { target: 'http://127.0.0.1:8000', changeOrigin: false },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/testing/setup-tests.ts'],
    // tus-js-client picks its build by the "browser" field, which Vite honours for the app but vitest (Node
    // resolution) does not: point tests at the browser build, the one that speaks XMLHttpRequest.
    alias: {
      'tus-js-client': fileURLToPath(new URL('./node_modules/tus-js-client/lib.esm/browser/index.js', import.meta.url)),
    },
    css: false,
    restoreMocks: true,
  },
});
