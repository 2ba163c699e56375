// The demo's last act: a proof-of-reserves scan over funded regtest addresses, as a user would run it.
// scripts/demo.mjs calls demoReserves() with its throwaway node; nothing here starts or stops a node.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
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

  // the same scan as a proof document, then checked as a third party would check it later
  const proof = join(mkdtempSync(join(tmpdir(), "chaingw-demo-")), "proof.json");
  const steps = [
    ["reserves", "scan", ...addresses, "--proof", proof, "--challenge", "demo audit"],
    ["reserves", "verify", proof],
  ];
  let status = r.status ?? 1;
  for (const a of steps) {
    console.log(
      `\n$ chaingw ${a
        .map((x) => (addresses.includes(x) ? "" : x))
        .filter(Boolean)
        .join(" ")
        .replace("scan", `scan <${addresses.length} addresses>`)}`,
    );
    const s = spawnSync(process.execPath, [BIN, ...a], {
      env: { ...process.env, CHAINGW_URL: u.toString() },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    process.stdout.write(s.stdout ?? "");
    process.stderr.write(s.stderr ?? "");
    if (s.status !== 0) console.log(`(chaingw exited ${s.status})`);
    status ||= s.status ?? 1;
  }
  rmSync(dirname(proof), { recursive: true, force: true });
  return status;
}
