// One bundled file for the bin: start-up is a feature for scripts that call chaingw thousands of times.
import { readFileSync, rmSync } from "node:fs";
import { build } from "esbuild";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
// chunk names carry content hashes: start clean so stale chunks never pile up
rmSync("dist", { recursive: true, force: true });
await build({
  entryPoints: ["src/cli/entry.ts"],
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  // code only some commands need (reserves, batch, tables, spinners, codecs) goes to chunks loaded on use
  splitting: true,
  outdir: "dist",
  entryNames: "chaingw",
  chunkNames: "chunks/[name]-[hash]",
  define: { __VERSION__: JSON.stringify(pkg.version) },
  // bundled CommonJS deps (undici, cli-table3) call require(); give them one
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  legalComments: "none",
  logLevel: "warning",
});
