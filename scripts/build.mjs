// One bundled file for the bin: start-up is a feature for scripts that call chaingw thousands of times.
//
// CommonJS, one file, on purpose (measured with bench/startup.mjs): Node 20's ESM loader spent ~20 ms
// resolving, linking and evaluating the chunks of a split ESM build before the first line of chaingw
// ran. In one CommonJS file, code that only some commands use (reserves, batch, tables, spinners,
// codecs) is still not run at start-up: esbuild wraps modules reached through import() or require()
// in functions that run on first use; V8 only pre-parses them.
import { execFileSync } from "node:child_process";
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
      // ox (ABI, EIP-55; ~105 KB) is a bundle of its own, dist/ox.cjs, required on first use by balance
      // reads only (src/util/ox.ts)
      name: "ox-apart",
      setup(b) {
        b.onResolve({ filter: /\/util\/ox\.js$/ }, () => ({ path: "./ox.cjs", external: true }));
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
  entryPoints: ["src/util/ox.ts"],
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  outfile: "dist/ox.cjs",
  legalComments: "none",
  logLevel: "warning",
});

// V8 code cache for bin/chaingw: compiled while running a command that touches the common path
// (`methods`: the launcher, commander, the global options and the registry), written when it exits.
execFileSync(process.execPath, ["bin/chaingw", "methods"], {
  env: { ...process.env, CHAINGW_WRITE_CODE_CACHE: "1" },
  stdio: "ignore",
});
