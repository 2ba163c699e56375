import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { callRpc } from "./http.js";
import { freePort } from "./ports.js";
import { HANG_GUARD_MS, hasExited, sleep, terminate, trackChild } from "./procs.js";

export interface AnvilNode {
  port: number;
  /** http://127.0.0.1:PORT/ */
  url: string;
  /** Throws an Error with `.code` on a JSON-RPC error. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** a node that neither answers nor exits is hung only after the suite's one guard */
const READY_TIMEOUT_MS = HANG_GUARD_MS;
const POLL_MS = 50;

/**
 * node_modules/.bin/anvil is a Node wrapper that spawns the platform binary; SIGKILL on the wrapper
 * would orphan the real anvil. Run the platform binary itself when it is there.
 */
function anvilCommand(): string {
  const native = `${ROOT}node_modules/@foundry-rs/anvil-${process.platform}-${process.arch === "x64" ? "amd64" : process.arch}/bin/anvil`;
  return existsSync(native) ? native : `${ROOT}node_modules/.bin/anvil`;
}

async function waitReady(child: ChildProcess, url: string, stderr: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = "no attempt";
  for (let i = 0; i < READY_TIMEOUT_MS / POLL_MS && Date.now() < deadline; i++) {
    if (hasExited(child))
      throw new Error(`anvil exited (code ${child.exitCode}) before it answered: ${stderr()}`);
    try {
      await callRpc(url, "eth_chainId", [], { timeoutMs: 2_000 });
      return;
    } catch (e) {
      last = (e as Error).message;
    }
    await sleep(POLL_MS);
  }
  throw new Error(`anvil not ready after ${READY_TIMEOUT_MS} ms (last: ${last}; stderr: ${stderr()})`);
}

/** `args`: more anvil flags (e.g. `--timestamp N`, so that two nodes share a genesis block). */
export async function startAnvil(args: string[] = [], o: { port?: number } = {}): Promise<AnvilNode> {
  let lastErr: unknown;
  // Retry on a fresh port in case another process grabbed ours between freePort() and bind.
  for (let attempt = 0; attempt < 3; attempt++) {
    // o.port: a node started again where one was (a restarted devnet)
    const port = o.port ?? (await freePort());
    const url = `http://127.0.0.1:${port}/`;
    const child = spawn(
      anvilCommand(),
      ["--port", String(port), "--host", "127.0.0.1", "--silent", ...args],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    trackChild(child);
    let err = "";
    child.stderr?.on("data", (c: Buffer) => {
      if (err.length < 8192) err += c.toString("utf8");
    });
    child.on("error", (e) => {
      err += String(e);
    });
    try {
      await waitReady(child, url, () => err.trim());
    } catch (e) {
      lastErr = e;
      await terminate(child, 3_000);
      if (/in use|bind/i.test(String((e as Error).message))) continue;
      break;
    }
    let stopping: Promise<void> | undefined;
    return {
      port,
      url,
      rpc: <T = unknown>(method: string, params: unknown[] = []): Promise<T> =>
        callRpc<T>(url, method, params, { timeoutMs: HANG_GUARD_MS }),
      stop: () => {
        stopping ??= terminate(child, 5_000);
        return stopping;
      },
    };
  }
  throw lastErr instanceof Error ? lastErr : new Error(String(lastErr));
}
