#!/usr/bin/env node
// What a new user's `npm i -g chaingw` costs (issue 27): `npm pack` of this tree, then a global install of
// the tarball into an empty prefix, as from the registry (dependencies from npm's cache when it has them:
// --prefer-offline). Prints the install's wall time, the packages installed and the bytes on disk, and
// checks that the installed chaingw runs.
// Usage: npm run build && node bench/install.mjs [--runs 3]
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const i = process.argv.indexOf("--runs");
const RUNS = i > 0 ? Number(process.argv[i + 1]) : 3;
const work = mkdtempSync(join(tmpdir(), "chaingw-bench-install-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const tgz = join(
  work,
  execFileSync("npm", ["pack", "--silent", "--pack-destination", work], { cwd: ROOT, encoding: "utf8" })
    .trim()
    .split("\n")
    .pop(),
);

function du(dir) {
  let bytes = 0;
  let files = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      const d = du(p);
      bytes += d.bytes;
      files += d.files;
    } else if (e.isFile()) {
      bytes += statSync(p).size;
      files++;
    }
  }
  return { bytes, files };
}

const times = [];
let last;
for (let r = 0; r < RUNS; r++) {
  const prefix = join(work, `prefix-${r}`);
  const t0 = process.hrtime.bigint();
  const res = spawnSync(
    "npm",
    ["install", "-g", "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund", tgz],
    { encoding: "utf8" },
  );
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (res.status !== 0) throw new Error(`npm install failed: ${res.stderr}`);
  const mods = join(prefix, "lib", "node_modules");
  const nm = join(mods, "chaingw", "node_modules");
  let pkgs = 0;
  if (existsSync(nm))
    for (const e of readdirSync(nm))
      if (e.startsWith("@")) pkgs += readdirSync(join(nm, e)).length;
      else if (!e.startsWith(".")) pkgs++;
  last = { prefix, pkgs, ...du(prefix) };
  const v = spawnSync(join(prefix, "bin", "chaingw"), ["--version"], { encoding: "utf8" });
  if (v.status !== 0) throw new Error(`the installed chaingw does not run: ${v.stderr}`);
}
times.sort((a, b) => a - b);
console.log(`tarball ${(statSync(tgz).size / 1024).toFixed(0)} KB`);
console.log(
  `npm i -g of the tarball into an empty prefix: median ${times[Math.floor(times.length / 2)].toFixed(0)} ms over ${RUNS} runs; ${last.pkgs} packages under chaingw/node_modules; ${(last.bytes / 1e6).toFixed(1)} MB in ${last.files} files`,
);
