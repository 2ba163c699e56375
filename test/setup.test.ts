/**
 * scripts/setup.sh (issue 27): installs what the command being run needs — the demo litecoind, the tests
 * also redis-server, chromium, electrum and python3-requests — one line per thing it installs, the installer's output only when it
 * fails, nothing at all on a ready machine. apt-get is replaced by a script of ours on a PATH that lacks the
 * programs (the real one would install them for real); it logs its arguments and prints the noise apt-get
 * prints.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { trackDir } from "./helpers/procs.js";

const ROOT = new URL("../", import.meta.url).pathname;
const SETUP = join(ROOT, "scripts/setup.sh");

/** A bin folder with the few programs setup.sh uses, and a fake apt-get; litecoind & co. are absent. */
function fakeMachine(opts: { aptFails?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "chaingw-setup-"));
  trackDir(dir);
  const bin = join(dir, "bin");
  spawnSync("mkdir", [bin]);
  for (const tool of ["bash", "dirname", "mktemp", "cat", "rm", "env", "id", "node", "npm"]) {
    const real = spawnSync("bash", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
    if (real) symlinkSync(real, join(bin, tool));
  }
  const log = join(dir, "apt.log");
  writeFileSync(
    join(bin, "apt-get"),
    `#!/bin/bash
echo "$*" >> ${log}
for ((i = 1; i <= 200; i++)); do echo "Get:$i http://deb.debian.org/debian bookworm/main amd64 noise [1234 kB]"; done
${opts.aptFails ? 'echo "E: Unable to locate package $3" >&2; exit 100' : ""}
if [ "$1" = "install" ]; then
  for p in "$@"; do case "$p" in -*|install) ;; *) printf '#!/bin/sh\\n' > ${bin}/$p; /bin/chmod +x ${bin}/$p ;; esac; done
fi
`,
  );
  chmodSync(join(bin, "apt-get"), 0o755);
  // Debian's python3 as setup.sh checks it: `import requests` works once apt-get installed python3-requests
  const python = join(dir, "python3");
  writeFileSync(python, `#!/bin/bash\n[ -x ${bin}/python3-requests ]\n`);
  chmodSync(python, 0o755);
  const env = { PATH: bin, HOME: dir, CHAINGW_SETUP_PYTHON: python };
  const run = (what: string) => spawnSync(join(bin, "bash"), [SETUP, what], { env, encoding: "utf8" });
  return { run, apt: () => (existsSync(log) ? readFileSync(log, "utf8") : "") };
}

describe("scripts/setup.sh installs what the command needs, quietly", () => {
  it("on a ready machine: nothing printed, nothing done", () => {
    for (const what of ["demo", "test"]) {
      const r = spawnSync("bash", [SETUP, what], { encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).toBe("");
    }
  });

  it("the demo installs litecoind alone (no chromium): one line, no apt-get output; a second run prints nothing", () => {
    const m = fakeMachine();
    const r = m.run("demo");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("setup: installing litecoind (Debian, apt-get)\n");
    expect(m.apt()).toBe("update -qq\ninstall -y -qq litecoind\n");
    const again = m.run("demo");
    expect(again.status).toBe(0);
    expect(again.stdout + again.stderr).toBe("");
  });

  it("the tests install litecoind, redis-server, chromium, zsh, fish, electrum and python3-requests, one line each", () => {
    const m = fakeMachine();
    const r = m.run("test");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr.split("\n").filter(Boolean)).toEqual([
      "setup: installing litecoind (Debian, apt-get)",
      "setup: installing redis-server (Debian, apt-get)",
      "setup: installing chromium (Debian, apt-get)",
      "setup: installing zsh (Debian, apt-get)",
      "setup: installing fish (Debian, apt-get)",
      "setup: installing electrum (Debian, apt-get)",
      "setup: installing python3-requests (Debian, apt-get)",
    ]);
    expect(m.apt()).toContain(
      "install -y -qq litecoind redis-server chromium zsh fish electrum python3-requests",
    );
    const again = m.run("test");
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout + again.stderr).toBe("");
  });

  it("a failing apt-get: its output is shown, and what failed", () => {
    const m = fakeMachine({ aptFails: true });
    const r = m.run("demo");
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("E: Unable to locate package");
    expect(r.stderr).toContain("Get:200 http://deb.debian.org");
    expect(r.stderr).toContain("setup: failed: apt-get update -qq");
  });

  it("an unknown command is exit 2, saying the usage", () => {
    const r = spawnSync("bash", [SETUP, "deploy"], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("usage: scripts/setup.sh demo|test");
  });

  it("a node_modules that is a link to another tree's (a worktree sharing them) is left alone: npm ci would empty the linked folder", () => {
    const dir = mkdtempSync(join(tmpdir(), "chaingw-setup-link-"));
    trackDir(dir);
    const tree = join(dir, "tree");
    const shared = join(dir, "shared-node_modules");
    const bin = join(dir, "bin");
    for (const d of [join(tree, "scripts"), shared, bin]) spawnSync("mkdir", ["-p", d]);
    writeFileSync(join(tree, "scripts/setup.sh"), readFileSync(SETUP));
    writeFileSync(join(shared, ".package-lock.json"), "{}");
    writeFileSync(join(shared, "marker"), "the other tree's packages");
    // the worktree's lock is newer than the linked packages' record (a fresh checkout is)
    spawnSync("touch", ["-d", "2020-01-01", join(shared, ".package-lock.json")]);
    writeFileSync(join(tree, "package-lock.json"), "{}");
    symlinkSync(shared, join(tree, "node_modules"));
    for (const tool of ["bash", "dirname", "mktemp", "cat", "rm", "env", "id"]) {
      const real = spawnSync("bash", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
      if (real) symlinkSync(real, join(bin, tool));
    }
    // npm as `npm ci` acts on a linked node_modules: the folder behind the link emptied; and litecoind present
    writeFileSync(
      join(bin, "npm"),
      `#!/bin/bash\necho "npm $*" >> ${dir}/npm.log\n/bin/rm -rf ${shared}/* ${shared}/.package-lock.json\n`,
    );
    writeFileSync(join(bin, "litecoind"), "#!/bin/sh\n");
    chmodSync(join(bin, "npm"), 0o755);
    chmodSync(join(bin, "litecoind"), 0o755);
    const r = spawnSync(join(bin, "bash"), [join(tree, "scripts/setup.sh"), "demo"], {
      env: { PATH: bin, HOME: dir },
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toBe("");
    expect(existsSync(join(dir, "npm.log"))).toBe(false);
    expect(readFileSync(join(shared, "marker"), "utf8")).toBe("the other tree's packages");
  });
});
