import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ResultPromise } from "execa";
import { runCli, spawnCli } from "./cli.js";
import { HANG_GUARD_MS, running, trackDir, until } from "./procs.js";

/** A running `chaingw serve` (the built CLI), its access log and its notes. */
export interface Served {
  url: string;
  dir: string;
  configFile: string;
  proc: ResultPromise;
  /** access-log lines so far (stdout) */
  log(): string[];
  /** the gateway's notes so far (stderr) */
  notes(): string;
  /** a fresh key for products, made with `chaingw serve keys add` */
  addKey(...products: string[]): Promise<string>;
  /** keys made before the start, one per `keys` entry of the options */
  keys: string[];
  /** SIGTERM, and the exit code */
  stop(): Promise<number>;
}

export function gatewayDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "chaingw-serve-"));
  trackDir(dir);
  return dir;
}

export async function addKey(configFile: string, products: string[]): Promise<string> {
  const r = await runCli([
    "serve",
    "keys",
    "add",
    "--config",
    configFile,
    ...products.flatMap((p) => ["--product", p]),
  ]);
  if (r.exitCode !== 0) throw new Error(`keys add failed: ${r.stderr}`);
  return r.stdout.trim().split(/\s+/).pop() as string;
}

/**
 * An upstream health probe's timeout (seconds) for the tests that do not test that timeout: a loaded host
 * makes a healthy node answer a probe late, and a short one would take it out of the rotation.
 */
export const PROBE_TIMEOUT_S = 10;

/** Writes `config` (keys next to it) and starts `chaingw serve` on a free port; waits until it listens. */
export async function startServe(
  config: Record<string, unknown>,
  o: { dir?: string; args?: string[]; env?: Record<string, string>; keys?: string[][] } = {},
): Promise<Served> {
  const dir = o.dir ?? gatewayDir();
  const configFile = join(dir, "gateway.json");
  writeFileSync(configFile, JSON.stringify({ keys: "keys.json", ...config }, null, 2));
  const keys: string[] = [];
  for (const products of o.keys ?? []) keys.push(await addKey(configFile, products));
  // one process unless the test asks for workers: the faults tested here are a process's own (fds, signals)
  const args = o.args ?? [];
  const workers = args.includes("--workers") ? [] : ["--workers", "1"];
  const proc = spawnCli(["serve", "--config", configFile, "--listen", "127.0.0.1:0", ...workers, ...args], {
    env: o.env,
    timeoutMs: HANG_GUARD_MS,
  });
  let out = "";
  let err = "";
  proc.stdout?.on("data", (c: Buffer) => (out += c.toString()));
  proc.stderr?.on("data", (c: Buffer) => (err += c.toString()));
  // it listens when it says so, for as long as it runs (a loaded host starts it late, not wrong)
  const listening = () => /listening on (http:\/\/[^\s,]+)/.exec(err)?.[1];
  try {
    await until("serve listening", () => listening() !== undefined, running(proc));
  } catch {
    proc.kill("SIGKILL");
    throw new Error(`serve did not start: ${err}`);
  }
  const url = listening() as string;
  return {
    url,
    dir,
    configFile,
    proc,
    log: () => out.split("\n").filter(Boolean),
    notes: () => err,
    addKey: (...products) => addKey(configFile, products),
    keys,
    stop: async () => {
      proc.kill("SIGTERM");
      const r = await proc;
      return r.exitCode ?? -1;
    },
  };
}
