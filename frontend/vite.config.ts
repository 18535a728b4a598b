import { fileURLToPath, URL } from 'node:url';

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The built app is served by Django at `/` (every non-/api path returns index.html),
// so assets use the absolute base `/` and the router is a BrowserRouter.
// Only `dependencies` are imported here: `make dev` builds the app without the test and lint packages
// (the tests' settings are in vitest.config.ts; type checks are `make typecheck`).
export default defineConfig({
  base: '/',
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: {
    proxy: {
      '/api': { target: `http://127.0.0.1:${process.env.WHODUNNET_PORT ?? '8000'}`, changeOrigin: false },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
});
