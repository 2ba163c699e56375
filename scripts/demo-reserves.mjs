// The demo's last act: a proof-of-reserves scan over funded regtest addresses, as a user would run it.
// scripts/demo.mjs calls demoReserves() with its throwaway node; nothing here starts or stops a node.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const BIN = join(fileURLToPath(new URL("../", import.meta.url)), "bin", "chaingw");

/**
 * Runs `chaingw reserves scan` over `addresses` (plus one duplicate, to show it counted) and prints what
 * the user sees. The password travels in CHAINGW_URL, not on the command line, and never prints.
 * @param {{ url: string, user: string, password: string, addresses: string[] }} o
 * @returns {Promise<number>} chaingw's exit code
 */
export async function demoReserves({ url, user, password, addresses }) {
  const u = new URL(url);
  u.username = encodeURIComponent(user);
  u.password = encodeURIComponent(password);
  const args = ["reserves", "scan", ...addresses, addresses[0]];
  console.log(`\n$ chaingw reserves scan <${addresses.length} funded addresses> <one of them again>`);
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, CHAINGW_URL: u.toString() },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  process.stdout.write(r.stdout ?? "");
  process.stderr.write(r.stderr ?? "");
  if (r.status !== 0) console.log(`(chaingw exited ${r.status})`);
  return r.status ?? 1;
}
