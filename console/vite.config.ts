import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = fileURLToPath(new URL(".", import.meta.url));

// The console is served by the service at /console (src/rest/console.ts). `npm run console:dev`
// runs Vite's dev server instead and sends the API calls to a service on :4000.
export default defineConfig({
  root: here,
  base: "/console/",
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1024 },
  server: {
    port: 5173,
    proxy: {
      "/graphql": { target: "http://localhost:4000", ws: true, changeOrigin: false },
      "/console/api": { target: "http://localhost:4000" },
    },
  },
});
