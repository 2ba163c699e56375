/**
 * `chaingw --version` (and `-V`) alone: the launcher answers from package.json before reading any bundle, and
 * the fast bundle answers the same line when the launcher cannot (a copy without package.json), neither
 * reading the command tree (dist/cli.cjs): the line commander's tree prints, exit 0.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const copy = mkdtempSync(join(tmpdir(), "chaingw-version-"));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe("--version", () => {
  it("prints the package's version, the same line as the command tree's", async () => {
    for (const flag of ["--version", "-V"]) {
      const r = await runCli([flag]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(`${pkg.version}\n`);
      expect(r.stderr).toBe("");
    }
    // with another global option first, commander's tree answers: the same bytes
    const tree = await runCli(["--json", "--version"]);
    expect(tree.exitCode).toBe(0);
    expect(tree.stdout).toBe(`${pkg.version}\n`);
  });

  it("does not read the command tree", () => {
    cpSync(join(ROOT, "bin"), join(copy, "bin"), { recursive: true });
    cpSync(join(ROOT, "dist"), join(copy, "dist"), { recursive: true });
    rmSync(join(copy, "dist", "cli.cjs"));
    const run = (args: string[]) =>
      spawnSync(process.execPath, [join(copy, "bin", "chaingw"), ...args], { encoding: "utf8" });
    const v = run(["--version"]);
    expect(v.status).toBe(0);
    expect(v.stdout).toBe(`${pkg.version}\n`);
    // the control: a command that needs the tree fails in this copy
    expect(run(["--json", "--version"]).status).not.toBe(0);
  });
});
