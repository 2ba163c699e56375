/**
 * The package as a user installs it (issue 27): `npm pack`, then a global install of the tarball into an
 * empty prefix with no network (--offline): chaingw has no runtime dependencies, so the tarball is the whole
 * install. The installed copy answers --version, a plain call, a reserves proof and its verification, and
 * serve --help.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";

const ROOT = new URL("../", import.meta.url).pathname;
let dir: string;
let bin: string;
let node: LitecoinNode;
const env = { ...process.env, XDG_CONFIG_HOME: "/nonexistent/chaingw-install-test" };

const chaingw = (args: string[]) => spawnSync(bin, args, { encoding: "utf8", env });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-install-"));
  trackDir(dir);
  const nodeP = startLitecoind({ blocks: 101 });
  const out = execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], {
    cwd: ROOT,
    encoding: "utf8",
  });
  const tgz = join(dir, out.trim().split("\n").pop() as string);
  const prefix = join(dir, "prefix");
  const r = spawnSync(
    "npm",
    ["install", "-g", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", tgz],
    {
      encoding: "utf8",
    },
  );
  expect(r.status, r.stderr).toBe(0);
  bin = join(prefix, "bin", "chaingw");
  node = await nodeP;
});

afterAll(async () => {
  await node?.stop();
});

describe("npm pack, then install into an empty prefix, offline", () => {
  it("is the install the README leads with (the registry's `chaingw` is not ours)", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const install = readme.slice(readme.indexOf("## Install"), readme.indexOf("## Five-minute tour"));
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    const commands = [...install.matchAll(/^(npm [^#\n]*?)\s*(#|$)/gm)].map((m) => m[1]);
    expect(commands).toEqual(["npm ci && npm run build", "npm pack", `npm i -g ./chaingw-${version}.tgz`]);
  });

  it("installs the package alone: no dependencies beside it", () => {
    const pkg = join(dir, "prefix", "lib", "node_modules", "chaingw");
    expect(existsSync(join(pkg, "node_modules"))).toBe(false);
    expect(readdirSync(join(dir, "prefix", "lib", "node_modules"))).toEqual(["chaingw"]);
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
    expect(manifest.dependencies ?? {}).toEqual({});
  });

  it("runs --version, a plain call, serve --help", () => {
    const v = chaingw(["--version"]);
    expect(v.status, v.stderr).toBe(0);
    expect(v.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
    const c = chaingw(["--url", node.authUrl, "getblockcount"]);
    expect(c.status, c.stderr).toBe(0);
    expect(c.stdout.trim()).toBe("101");
    const s = chaingw(["serve", "--help"]);
    expect(s.status).toBe(0);
    expect(s.stdout).toContain("Usage: chaingw serve");
  });

  it("makes a reserve proof and verifies it (the proof library and its curves come from the bundle)", async () => {
    const addr = await node.newAddress();
    await node.rpc("sendtoaddress", [addr, 0.5]);
    await node.mine(1);
    const proof = join(dir, "proof.json");
    const p = chaingw(["--url", node.authUrl, "reserves", "scan", addr, "--proof", proof]);
    expect(p.status, p.stderr).toBe(0);
    const v = chaingw(["--url", node.authUrl, "reserves", "verify", proof]);
    expect(v.status, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toContain("holds");
  });
});
