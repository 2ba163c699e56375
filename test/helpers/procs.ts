import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";

/**
 * Registry of spawned nodes and temp dirs, so nothing outlives the test process even when a test
 * forgets stop() or the worker is torn down by a signal.
 */

const children = new Set<ChildProcess>();
const dirs = new Set<string>();
let installed = false;

function cleanupSync(): void {
  for (const child of children) {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
  children.clear();
  for (const dir of dirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort at exit
    }
  }
  dirs.clear();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.once("exit", cleanupSync);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = (): void => {
      cleanupSync();
      // Only re-raise when we were the sole listener, else the runner decides how to exit.
      process.removeListener(sig, onSignal);
      if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}

export function trackChild(child: ChildProcess): void {
  install();
  children.add(child);
  child.once("exit", () => children.delete(child));
}

export function trackDir(dir: string): void {
  install();
  dirs.add(dir);
}

export function untrackDir(dir: string): void {
  dirs.delete(dir);
}

/** True when the child has already exited (or was never started). */
export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Waits at most `ms` for the child to exit; resolves whether it did. */
export function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (hasExited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.removeListener("exit", onExit);
      resolve(false);
    }, ms);
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once("exit", onExit);
  });
}

/** SIGTERM (or a caller-supplied graceful step), then SIGKILL after `graceMs`. Bounded. */
export async function terminate(child: ChildProcess, graceMs: number): Promise<void> {
  if (hasExited(child)) return;
  child.kill("SIGTERM");
  if (await waitExit(child, graceMs)) return;
  child.kill("SIGKILL");
  await waitExit(child, 5_000);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The one clock of the suite: how long anything may take before it is called hung (vitest.config.ts's test
 * and hook limits are the same). It is not a measure: a loaded machine (load 10-14 with helpers running) is
 * slow, not wrong. Waits follow what they wait on (the node's scan status, the process's exit) with
 * `until`; timings a test asserts are the product's behaviour, not its waits.
 */
export const HANG_GUARD_MS = 600_000;

/**
 * The limit of a test that runs a counted list of processes, each under HANG_GUARD_MS (runCli's kill): its
 * count bounds it, not a time — at load 20 the fuzz's 2,000-odd runs outlast any fixed limit (setTimeout's
 * largest delay).
 */
export const BY_COUNT = 2 ** 31 - 1;

/**
 * Polls `ready` until it holds, for as long as `going` says what it waits on is still at work (the process
 * has not exited, the node still answers): a wait that follows progress, not the clock. Throws naming `what`
 * when `going` stops first, or (only a hang) after HANG_GUARD_MS.
 */
export async function until(
  what: string,
  ready: () => boolean | Promise<boolean>,
  going: () => boolean | Promise<boolean> = () => true,
  pollMs = 25,
): Promise<void> {
  for (let i = 0; i < HANG_GUARD_MS / pollMs; i++) {
    if (await ready()) return;
    if (!(await going())) {
      if (await ready()) return;
      throw new Error(`${what}: what it waited on stopped first`);
    }
    await sleep(pollMs);
  }
  throw new Error(`${what}: not after ${HANG_GUARD_MS} ms (hung)`);
}

/** A flag that turns false once `p` settles: `going` for `until` while a process runs. */
export function running(p: PromiseLike<unknown>): () => boolean {
  let on = true;
  p.then(
    () => {
      on = false;
    },
    () => {
      on = false;
    },
  );
  return () => on;
}
