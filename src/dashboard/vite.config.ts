import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Static, content-hashed files served by Slipway itself at `/` (src/http/routes/dashboard.ts).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [preact()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    // No inline script or style may run under the page's Content-Security-Policy.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
});
