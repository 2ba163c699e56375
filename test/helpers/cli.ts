import { mkdirSync, mkdtempSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa, type Options, type ResultPromise } from "execa";
import { HANG_GUARD_MS, trackDir } from "./procs.js";

export interface CliOptions {
  /** Added on top of the minimal env (PATH, HOME, XDG_CONFIG_HOME, NO_COLOR). */
  env?: Record<string, string>;
  /** Written to stdin; without it stdin is /dev/null so the CLI never waits on it. */
  input?: string;
  /** @default HANG_GUARD_MS */
  timeoutMs?: number;
  /** @default the per-process temp HOME, so no project-local config is picked up by accident */
  cwd?: string;
  /** The shell's `ulimit -f` (in KiB) for the CLI: a write past it fails with EFBIG, a real failure midway. */
  fileSizeKb?: number;
}

export interface CliResult {
  stdout: string;
  stderr: string;
  /** The exit code; 128+N when killed by signal N (shell convention), -1 if unknown. */
  exitCode: number;
  durationMs: number;
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(ROOT, "bin", "chaingw");

let home: string | undefined;

/** One throwaway HOME per test process, so no user config leaks into a run. */
function tempHome(): string {
  if (home === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "chaingw-home-"));
    mkdirSync(join(dir, ".config"), { recursive: true });
    // Removed at exit or on a terminating signal, like the node datadirs.
    trackDir(dir);
    home = dir;
  }
  return home;
}

function options(opts: CliOptions): Options {
  const h = tempHome();
  return {
    reject: false,
    extendEnv: false,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: h,
      XDG_CONFIG_HOME: join(h, ".config"),
      NO_COLOR: "1",
      ...opts.env,
    },
    cwd: opts.cwd ?? h,
    ...(opts.input !== undefined ? { input: opts.input } : { stdin: "ignore" as const }),
    // the process's exit is what a run waits for; a kill only for a hang (a test that wants one gives timeoutMs)
    timeout: opts.timeoutMs ?? HANG_GUARD_MS,
    forceKillAfterDelay: 2_000,
    stripFinalNewline: false,
  };
}

/** Runs `node bin/chaingw ...args` to completion; never throws on a non-zero exit. */
export async function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  const started = performance.now();
  const r =
    opts.fileSizeKb === undefined
      ? await execa(process.execPath, [BIN, ...args], options(opts))
      : await execa(
          "/bin/sh",
          // a POSIX shell's `ulimit -f` counts 512-byte blocks (dash, and bash as sh): two per KiB
          ["-c", `ulimit -f ${opts.fileSizeKb * 2} && exec "$0" "$@"`, process.execPath, BIN, ...args],
          options(opts),
        );
  const durationMs = performance.now() - started;
  let exitCode = r.exitCode ?? -1;
  if (r.exitCode === undefined && r.signal) {
    const n = constants.signals[r.signal as keyof typeof constants.signals];
    exitCode = typeof n === "number" ? 128 + n : -1;
  }
  return {
    stdout: String(r.stdout ?? ""),
    stderr: String(r.stderr ?? ""),
    exitCode,
    durationMs,
  };
}

/** Starts the CLI and hands back the execa subprocess (send signals, read streams, then await it). */
export function spawnCli(args: string[], opts: CliOptions = {}): ResultPromise {
  return execa(process.execPath, [BIN, ...args], options(opts));
}
