// One bundled file for the bin: start-up is a feature for scripts that call chaingw thousands of times.
//
// CommonJS, one file, on purpose (measured with bench/startup.mjs): Node 20's ESM loader spent ~20 ms
// resolving, linking and evaluating the chunks of a split ESM build before the first line of chaingw
// ran. In one CommonJS file, code that only some commands use (reserves, batch, tables, spinners,
// codecs) is still not run at start-up: esbuild wraps modules reached through import() or require()
// in functions that run on first use; V8 only pre-parses them.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { build } from "esbuild";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
rmSync("dist", { recursive: true, force: true });
await build({
  entryPoints: ["src/cli/entry.ts"],
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  outfile: "dist/chaingw.cjs",
  define: { __VERSION__: JSON.stringify(pkg.version) },
  // import() of dist/proof.cjs becomes require(): bin/chaingw runs the bundle through vm.Script, which has
  // no dynamic-import callback
  supported: { "dynamic-import": false },
  legalComments: "none",
  logLevel: "warning",
  plugins: [
    {
      // the proof library and its curve/transaction code live in dist/proof.cjs, required on first use
      name: "proof-apart",
      setup(b) {
        b.onResolve({ filter: /\/proof\/[a-z-]+\.js$/ }, (args) =>
          args.importer.includes(`${"src"}/proof/`) ? undefined : { path: "./proof.cjs", external: true },
        );
      },
    },
    {
      // prom-client and ioredis live in dist/serve-vendor.cjs, required when `chaingw serve` starts
      name: "serve-vendor-apart",
      setup(b) {
        b.onResolve({ filter: /\/vendor\.js$/ }, (args) =>
          args.importer.includes(`${"src"}/serve/`)
            ? { path: "./serve-vendor.cjs", external: true }
            : undefined,
        );
      },
    },
    {
      // the balance reads' own ox wrapper (src/util/ox.ts) in dist/ox-util.cjs, required on first use
      name: "ox-util-apart",
      setup(b) {
        b.onResolve({ filter: /\/util\/ox\.js$/ }, () => ({ path: "./ox-util.cjs", external: true }));
      },
    },
    {
      // ox (the ABI codec of the EVM commands) lives in dist/ox.cjs, required on first use
      name: "ox-apart",
      setup(b) {
        b.onResolve({ filter: /(^|\/)ox\.js$/ }, (args) =>
          args.importer.includes(`${"src"}/evm/`) ? { path: "./ox.cjs", external: true } : undefined,
        );
      },
    },
    {
      // commander loads node:child_process (~2 ms) for executable subcommands, which chaingw never has
      name: "no-child-process-in-commander",
      setup(b) {
        b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
          args.importer.includes(`${"node_modules"}/commander/`)
            ? { path: "child_process", namespace: "stub" }
            : undefined,
        );
        b.onLoad({ filter: /.*/, namespace: "stub" }, () => ({
          contents:
            "module.exports = { spawn() { throw new Error('executable subcommands are not used'); } };",
          loader: "js",
        }));
      },
    },
  ],
});

await build({
  entryPoints: ["src/proof/index.ts"],
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  outfile: "dist/proof.cjs",
  legalComments: "none",
  logLevel: "warning",
});

await build({
  entryPoints: ["src/serve/vendor.ts"],
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  outfile: "dist/serve-vendor.cjs",
  legalComments: "none",
  logLevel: "warning",
});

await build({
  entryPoints: ["src/util/ox.ts"],
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  outfile: "dist/ox-util.cjs",
  legalComments: "none",
  logLevel: "warning",
});

await build({
  entryPoints: ["src/evm/ox.ts"],
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  outfile: "dist/ox.cjs",
  legalComments: "none",
  logLevel: "warning",
});

// V8 code cache for bin/chaingw: compiled while running what scripts run in a loop, a plain method call
// (the fast path: argv, the registry, settings, the client, an error report; here against a port that
// refuses at once), written when it exits.
// It exits 3 (nothing listens there); the cache is written either way.
const { CHAINGW_CONFIG: _, ...env } = process.env;
spawnSync(
  process.execPath,
  ["bin/chaingw", "--url", "http://127.0.0.1:9/", "--retries", "0", "getblockcount"],
  {
    env: { ...env, CHAINGW_WRITE_CODE_CACHE: "1", XDG_CONFIG_HOME: "/nonexistent/chaingw-build" },
    stdio: "ignore",
  },
);
