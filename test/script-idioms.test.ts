/**
 * Issue 49: chaingw as a shell script runs it — the built command on PATH, in `bash -c` with `set -euo
 * pipefail`, its output redirected to files, /dev/full, a full tmpfs, past `ulimit -f`, into pipes that
 * close early, in `env -i` — beside litecoin-cli on the same litecoind where it has the same command.
 */
import { execSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";

const BIN = fileURLToPath(new URL("../bin/chaingw", import.meta.url));

let dir: string;
let path: string;
let node: LitecoinNode;

interface Sh {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/**
 * A bash script with `set -euo pipefail`, `chaingw` and `litecoin-cli` on PATH, the node's URL in
 * CHAINGW_URL and litecoin-cli's flags in $LTC (`litecoin-cli $LTC getblockcount`), nothing else of ours
 * in the environment.
 */
async function sh(script: string, env: Record<string, string> = {}): Promise<Sh> {
  const r = await execa("bash", ["-c", `set -euo pipefail\n${script}`], {
    reject: false,
    extendEnv: false,
    env: {
      PATH: `${path}:/usr/local/bin:/usr/bin:/bin`,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, ".config"),
      CHAINGW_URL: node.authUrl,
      LTC: `-regtest -rpcport=${node.port} -rpcuser=${node.user} -rpcpassword=${node.password}`,
      ...env,
    },
    cwd: dir,
    stdin: "ignore",
    timeout: 120_000,
    stripFinalNewline: false,
  });
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 };
}

/** A small tmpfs (root only): a disk that really fills up. Undefined where it cannot be mounted. */
let small: string | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-scripts-"));
  trackDir(dir);
  path = join(dir, "bin");
  mkdirSync(path);
  mkdirSync(join(dir, ".config"));
  symlinkSync(BIN, join(path, "chaingw"));
  node = await startLitecoind({ blocks: 101 });
  const m = join(dir, "small");
  mkdirSync(m);
  try {
    execSync(`mount -t tmpfs -o size=64k tmpfs ${m}`, { stdio: "ignore" });
    small = m;
  } catch {}
}, 120_000);

afterAll(async () => {
  if (small) execSync(`umount ${small}`, { stdio: "ignore" });
  await node?.stop();
});

const WRITE =
  /^chaingw: cannot write stdout: (ENOSPC \(no space left on device\)|EFBIG \(file too large\))\n$/;

describe("item 1: every write to stdout is checked; a closed pipe is a quiet success", () => {
  it("/dev/full: a plain call, --json getblock, --range, help and --version exit 1 with one line naming stdout", async () => {
    for (const cmd of [
      "chaingw getblockcount",
      "chaingw getblock $(chaingw getbestblockhash) 2",
      "chaingw getblockheader --range 1..50",
      "chaingw --help",
      "chaingw --version",
    ]) {
      const r = await sh(`${cmd} > /dev/full`);
      expect(r.exitCode, `${cmd}: ${r.stderr}`).toBe(1);
      expect(r.stderr, cmd).toMatch(/^chaingw: cannot write stdout: ENOSPC \(no space left on device\)\n$/);
    }
    // --json: the same, as one JSON object on stderr
    for (const cmd of [
      "chaingw --json getblock $(chaingw getbestblockhash) 2",
      "chaingw --json getblockheader --range 1..50",
    ]) {
      const j = await sh(`${cmd} > /dev/full`);
      expect(j.exitCode, cmd).toBe(1);
      expect(JSON.parse(j.stderr), cmd).toEqual({
        error: { code: "write", message: "cannot write stdout: ENOSPC (no space left on device)" },
      });
    }
    // beside it: litecoin-cli 0.21 does not check its writes (the answer lost, exit 0, nothing said)
    const l = await sh("litecoin-cli $LTC getblockcount > /dev/full");
    expect([l.exitCode, l.stderr]).toEqual([0, ""]);
  }, 120_000);

  it("past `ulimit -f` (a short write, then EFBIG): exit 1, not the output cut and exit 0", async () => {
    // 101 headers are ~60 KB; the limit cuts them at 8 KiB, mid-write
    const r = await sh("ulimit -f 8; chaingw getblockheader --range 1..101 > out.jsonl");
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(WRITE);
    const plain = await sh("ulimit -f 8; chaingw --json getblock $(chaingw getbestblockhash) 2 > block.json");
    expect(plain.exitCode).toBe(0);
    const big = await sh(
      "ulimit -f 8; chaingw getblockheader $(chaingw getblockhash 1) > h.json && chaingw getblockheader --range 1..101 > all.jsonl",
    );
    expect(big.exitCode).toBe(1);
    expect(big.stderr).toMatch(WRITE);
  }, 120_000);

  it.skipIf(process.getuid?.() !== 0)(
    "a disk that fills up (a 64 KiB tmpfs): --range and reserves scan --json exit 1",
    async () => {
      if (!small) return;
      // 56 KiB taken: the ~60 KB of 102 headers do not fit in what is left
      const r = await sh(
        `head -c 57344 /dev/zero > ${small}/fill; chaingw --json getblockheader --range 0..101 > ${small}/headers.jsonl`,
      );
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toContain('"cannot write stdout: ENOSPC (no space left on device)"');
      // the disk is full now: a reserves report cannot go there either
      const addr = await node.newAddress();
      const s = await sh(`chaingw reserves scan ${addr} --json > ${small}/report.json`);
      expect(s.exitCode, s.stderr).toBe(1);
      expect(JSON.parse(s.stderr.trim().split("\n").at(-1) ?? "")).toMatchObject({
        error: { code: "write", message: "cannot write stdout: ENOSPC (no space left on device)" },
      });
      execSync(`rm -f ${small}/*`);
    },
    120_000,
  );

  it("a reader that leaves early (| head -1) under pipefail: exit 0, nothing on stderr", async () => {
    const r = await sh("chaingw getblockheader --range 0..101 | head -1 > first.json; cat first.json");
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout).id).toBe(0);
    const b = await sh("chaingw --json getblock $(chaingw getblockhash 0) 2 | head -c 10 > /dev/null");
    expect(b.exitCode, b.stderr).toBe(0);
    expect(b.stderr).toBe("");
  }, 120_000);

  it("control: a redirect to a file that has room is whole and exit 0", async () => {
    const r = await sh("chaingw getblockheader --range 0..101 > all.jsonl; wc -l < all.jsonl");
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("102");
    expect(readFileSync(join(dir, "all.jsonl"), "utf8").split("\n").length).toBe(103);
  }, 120_000);
});
