// One bundled file for the bin: start-up is a feature for scripts that call chaingw thousands of times.
//
// CommonJS, one file, on purpose (measured with bench/startup.mjs): Node 20's ESM loader spent ~20 ms
// resolving, linking and evaluating the chunks of a split ESM build before the first line of chaingw
// ran. In one CommonJS file, code that only some commands use (reserves, batch, tables, spinners,
// codecs) is still not run at start-up: esbuild wraps modules reached through import() or require()
// in functions that run on first use; V8 only pre-parses them.
import { execFile, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { build } from "esbuild";
import { genHelp } from "./gen-help.mjs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
rmSync("dist", { recursive: true, force: true });
// help texts' lists from the tables, before any bundle takes src/cli/help-lists.ts
await genHelp();
/** Packages bundled apart, each into its own file in dist/ (see "vendor-apart"). */
const VENDOR = {
  chalk: "chalk.cjs",
  "cli-table3": "cli-table3.cjs",
  ora: "ora.cjs",
  "@scure/base": "scure-base.cjs",
};

/** What both CLI bundles share: the fast path's (dist/chaingw.cjs) and the command tree's (dist/cli.cjs). */
const cli = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  define: { __VERSION__: JSON.stringify(pkg.version) },
  // import() of dist/proof.cjs becomes require(): bin/chaingw runs the bundle through vm.Script, which has
  // no dynamic-import callback
  supported: { "dynamic-import": false },
  legalComments: "none",
  logLevel: "warning",
  plugins: [
    {
      // the terminal libraries (colours, tables, spinners) and @scure/base (TRON's base58) live in files of
      // their own, required on first use: a plain call to a pipe needs none of them
      name: "vendor-apart",
      setup(b) {
        b.onResolve({ filter: /^(chalk|cli-table3|ora|@scure\/base)$/ }, (args) =>
          args.importer.includes(`${"src"}/`) && !args.importer.includes(`${"src"}/proof/`)
            ? { path: `./${VENDOR[args.path]}`, external: true }
            : undefined,
        );
      },
    },
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
      // ox (the ABI codec of the EVM commands and the balance reads, one wrapper: src/util/ox.ts) lives in
      // dist/ox.cjs, required on first use
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
};

// The fast path: a plain `<method> [params]` call reads, compiles and runs only this file (argv, the
// registry, settings, the client, error reports). Everything else — commander, the command tree, the
// workflows and their renderers — is dist/cli.cjs, required on first use (issue 27: reading and compiling
// the whole 0.95 MB bundle was most of what a plain call spent beyond a bare node:http round trip). The
// command tree reports its own errors with its own copies of the error classes, so no error crosses.
await build({
  ...cli,
  entryPoints: ["src/cli/entry.ts"],
  outfile: "dist/chaingw.cjs",
  plugins: [
    ...cli.plugins,
    {
      name: "command-tree-apart",
      setup(b) {
        b.onResolve({ filter: /^\.\/main\.js$/ }, (args) =>
          args.importer.endsWith(`${"src"}/cli/entry.ts`) ? { path: "./cli.cjs", external: true } : undefined,
        );
      },
    },
  ],
});
await build({ ...cli, entryPoints: ["src/cli/main.ts"], outfile: "dist/cli.cjs" });
// the streamed liabilities build's worker thread (src/liabilities/worker.ts), started by `liabilities build`
await build({ ...cli, entryPoints: ["src/liabilities/worker.ts"], outfile: "dist/liabilities-worker.cjs" });
// the worker threads of `reserves verify` on a large exchange address file (src/exchange/ownership/worker.ts)
await build({
  ...cli,
  entryPoints: ["src/exchange/ownership/worker.ts"],
  outfile: "dist/ownership-worker.cjs",
});
for (const [name, file] of Object.entries(VENDOR))
  await build({
    // an ES module's default export is the file's export (import() of a CommonJS file in Node mode
    // takes module.exports as the default), its named exports beside it
    stdin: {
      contents: `const m = require(${JSON.stringify(name)});\nmodule.exports = m && m.__esModule && typeof m.default === "function" ? Object.assign(m.default, m) : m;`,
      resolveDir: ".",
    },
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    outfile: `dist/${file}`,
    legalComments: "none",
    logLevel: "warning",
  });

// libsecp256k1, prebuilt by the `secp256k1` package (N-API: one file serves every Node version), beside
// dist/proof.cjs, which loads this platform's on the first signature it checks (src/proof/curve.ts)
const PREBUILT = "node_modules/secp256k1/prebuilds";
// a node_modules installed before the package was added has none: the bundle then checks with @noble
for (const [from, to] of [
  ["linux-x64/secp256k1.glibc.node", "secp256k1-linux-x64-glibc.node"],
  ["linux-x64/secp256k1.musl.node", "secp256k1-linux-x64-musl.node"],
  ["darwin-arm64/secp256k1.node", "secp256k1-darwin-arm64.node"],
  ["win32-x64/secp256k1.node", "secp256k1-win32-x64.node"],
])
  if (existsSync(`${PREBUILT}/${from}`)) copyFileSync(`${PREBUILT}/${from}`, `dist/${to}`);
  else console.warn(`build: ${PREBUILT}/${from} missing (npm ci): signatures checked by @noble/curves`);

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
  outfile: "dist/ox.cjs",
  legalComments: "none",
  logLevel: "warning",
});

// V8 code cache for bin/chaingw: compiled while running what scripts run in a loop, a plain method call
// (the fast path: argv, the registry, settings, the client, the answer read and rendered), written when it
// exits. The call goes to a loopback stand-in that answers as litecoind does, so the functions of a call that
// succeeds — the wire client's framing, the answer's reading, the renderer, the output — are in the cache too
// (warmed against a port that refused, they were compiled on every run instead: ~2 % of a call's CPU).
const { CHAINGW_CONFIG: _, ...env } = process.env;
const warmEnv = { ...env, CHAINGW_WRITE_CODE_CACHE: "1", XDG_CONFIG_HOME: "/nonexistent/chaingw-build" };
const WARM_ANSWER = readFileSync("scripts/warm-answer.json", "utf8").trim();
const standIn = createServer((req, res) => {
  const parts = [];
  req.on("data", (c) => parts.push(c));
  req.on("end", () => {
    const { id } = JSON.parse(Buffer.concat(parts).toString("utf8"));
    res.setHeader("Content-Type", "application/json");
    res.end(`{"result":${WARM_ANSWER},"error":null,"id":${JSON.stringify(id)}}\n`);
  });
});
await new Promise((resolve) => standIn.listen(0, "127.0.0.1", resolve));
const warmUrl = `http://127.0.0.1:${standIn.address().port}/`;
await new Promise((resolve) =>
  execFile(
    process.execPath,
    ["bin/chaingw", "--url", warmUrl, "--retries", "0", "getblockchaininfo"],
    { env: warmEnv },
    resolve,
  ),
);
standIn.close();
// and the command tree's (dist/cli.cjs.cache): --help builds every command's declaration
spawnSync(process.execPath, ["bin/chaingw", "--help"], { env: warmEnv, stdio: "ignore" });
