import { fileURLToPath, URL } from 'node:url';

import { defineConfig, mergeConfig } from 'vitest/config';

import viteConfig from './vite.config';

export default mergeConfig(
  viteConfig,
  defineConfig({
    test: {
      environment: 'jsdom',
      globals: true,
      setupFiles: ['./src/testing/setup-tests.ts'],
      // tus-js-client picks its build by the "browser" field, which Vite honours for the app but vitest (Node
      // resolution) does not: point tests at the browser build, the one that speaks XMLHttpRequest.
      alias: {
        'tus-js-client': fileURLToPath(
          new URL('./node_modules/tus-js-client/lib.esm/browser/index.js', import.meta.url),
        ),
      },
      css: false,
      restoreMocks: true,
      // A test that types a whole form takes 2 s on an idle 2-core machine and more than the default 5 s when
      // other builds share it; 20 s still fails a test that hangs, without failing one that is merely slow.
      testTimeout: 20_000,
    },
  }),
);
