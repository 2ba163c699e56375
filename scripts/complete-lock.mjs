#!/usr/bin/env node
/**
 * Completes package-lock.json with other platforms' optional binaries (biome, anvil, cast) when the
 * registry that made the lock served only this platform's: npm then leaves them out, and `npm ci`
 * elsewhere refuses the lock as "out of sync" ("Missing: @biomejs/cli-darwin-arm64@ from lock file").
 * Each missing entry gets its version and the os/cpu/libc its name states, so npm on this platform skips
 * it without fetching, and npm on that platform fetches it by name and version. Run after `npm install`.
 */
import { readFileSync, writeFileSync } from "node:fs";

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const pkgs = lock.packages;
const OS = { darwin: "darwin", linux: "linux", win32: "win32", android: "android" };
const CPU = { x64: "x64", amd64: "x64", arm64: "arm64" };

function platformOf(name) {
  const m = /-(darwin|linux|win32|android)-(x64|amd64|arm64)(-musl)?$/.exec(name);
  if (!m) return undefined;
  const p = { os: [OS[m[1]]], cpu: [CPU[m[2]]] };
  if (m[1] === "linux" && name.startsWith("@biomejs/")) p.libc = [m[3] ? "musl" : "glibc"];
  return p;
}

let added = 0;
for (const [key, entry] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const at = `node_modules/${dep}`;
    if (pkgs[at]) continue;
    const platform = platformOf(dep);
    if (!platform) throw new Error(`${key}: optional ${dep} is missing and names no platform`);
    pkgs[at] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, ...platform };
    added++;
  }
}
const sorted = Object.fromEntries(
  Object.entries(pkgs).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
lock.packages = sorted;
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lock: ${added} entries added`);
