/**
 * `npm run demo`'s script (scripts/demo.mjs) as a newcomer runs it — its own throwaway litecoind -regtest and
 * anvil — and what it leaves to open: the README's tour sends an auditor to the demo first, then to the package
 * and the customer's page, which the demo did not write (it deleted every file of its audit). Now it keeps the
 * report package and alice's page (in .tmp/demo-audit/, here CHAINGW_DEMO_OUT) and says where they are.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { domOf } from "./helpers/chromium.js";
import { runCli } from "./helpers/cli.js";
import { HANG_GUARD_MS, trackDir } from "./helpers/procs.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

describe("the demo", () => {
  it("ends SOLVENT, writes the report package (report verify holds) and alice's page (HOLDS in Chromium), and says where they are", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "chaingw-demo-test-")), "audit");
    trackDir(out);
    const r = await execa(process.execPath, [join(ROOT, "scripts", "demo.mjs")], {
      cwd: ROOT,
      env: { CHAINGW_DEMO_OUT: out },
      reject: false,
      timeout: HANG_GUARD_MS,
    });
    expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
    const stdout = String(r.stdout);
    expect(stdout).not.toContain("demo: expected exit");
    // the package: written with the scope, its manifest checked by report verify in the demo itself
    expect(stdout).toMatch(/report package written to .*audit\/package: 6 files and MANIFEST\.sha256/);
    expect(stdout).toContain(
      `$ chaingw report verify ${out}/package\nholds: the 6 files MANIFEST.sha256 lists are unchanged`,
    );
    expect(stdout).toContain(
      `demo: kept for you to open in a browser (each page self-contained, offline):\n  ${out}/package/index.html`,
    );
    expect(stdout).toContain(`  ${out}/alice.html   alice's page: checks her inclusion in her browser`);
    // what the auditor opens: SOLVENT with the scope given; the client's check of the manifest holds
    const page = await domOf(join(out, "package", "index.html"));
    expect(page).toMatch(/<p class="verdict" id="verdict" data-verdict="solvent">SOLVENT: /);
    expect(page).toContain('<tr data-field="auditor"><th>auditor</th><td>Demo Auditor</td></tr>');
    expect(page).toContain('<tr data-field="entity"><th>entity</th><td>Demo Exchange</td></tr>');
    const verify = await runCli(["report", "verify", join(out, "package")]);
    expect(verify.exitCode, verify.stderr).toBe(0);
    // what the customer opens: their balance, checked in the browser
    expect(existsSync(join(out, "alice.html"))).toBe(true);
    const alice = await domOf(join(out, "alice.html"));
    expect(alice).toMatch(/<p id="verdict" data-verdict="holds">HOLDS: /);
    expect(alice).toContain('<td class="num amount">2.50000000</td>');
    const root = JSON.parse(readFileSync(join(out, "package", "solvency.json"), "utf8")).report.commitment
      .root;
    expect(alice).toContain(root);
    // the one line of the demo that needs no node of its own (OKX's published files), copied as printed and
    // run from the repository's root, holds: it printed the tree file's name alone and the root cut to 12 digits
    const okx = /^\$ chaingw (liabilities verify \S*okx.*)$/m.exec(stdout)?.[1] ?? "";
    expect(okx).toContain("--root 9e98ebde32ef22ded88a5fb2d5e53d76ed57cb9c6b2c966f250721defe6ab041");
    const copied = await execa("/bin/sh", ["-c", `node bin/chaingw ${okx}`], {
      cwd: ROOT,
      reject: false,
      timeout: HANG_GUARD_MS,
    });
    expect(copied.exitCode, copied.stderr).toBe(0);
    expect(copied.stdout).toContain(
      "holds: root 9e98ebde32ef22ded88a5fb2d5e53d76ed57cb9c6b2c966f250721defe6ab041 (the root given by --root)",
    );
  });
});
