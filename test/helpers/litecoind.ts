import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callRpc, postRaw, type RpcError } from "./http.js";
import { freePort } from "./ports.js";
import {
  HANG_GUARD_MS,
  hasExited,
  sleep,
  terminate,
  trackChild,
  trackDir,
  untrackDir,
  waitExit,
} from "./procs.js";

/** The flags every throwaway node gets, shared with scripts/regtest.mjs (the demo and the benchmarks). */
const REGTEST_FLAGS: string[] = JSON.parse(
  readFileSync(new URL("../../scripts/litecoind-regtest.json", import.meta.url), "utf8"),
).flags;

export interface LitecoindOptions {
  /** Ignored when `cookie` is true. @default random hex */
  rpcUser?: string;
  /** Ignored when `cookie` is true. @default random hex */
  rpcPassword?: string;
  /** Blocks to mine right after start (to a fresh wallet address). 101 makes one coinbase spendable. */
  blocks?: number;
  /** Authenticate with `<datadir>/regtest/.cookie` instead of rpcuser/rpcpassword. @default false */
  cookie?: boolean;
  /** Accept peers on loopback (p2pPort), so a second node can sync from this one. @default false */
  listen?: boolean;
}

export interface LitecoinNode {
  port: number;
  /** the P2P port (peers connect here when started with `listen`) */
  p2pPort: number;
  /** http://127.0.0.1:PORT/ without credentials. */
  url: string;
  /** http://user:pass@127.0.0.1:PORT/ */
  authUrl: string;
  user: string;
  password: string;
  datadir: string;
  /** `<datadir>/regtest/.cookie`; only exists in cookie mode (rpcuser suppresses it). */
  cookieFile: string;
  /** Throws an Error with `.code` (the node's RPC code) on an RPC error. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** POST a raw body with the node's credentials; no parsing. */
  rawCall(body: string): Promise<{ status: number; text: string }>;
  /** generatetoaddress; `address` defaults to a fresh wallet address. */
  mine(n: number, address?: string): Promise<string[]>;
  /** A fresh bech32 `rltc1...` address. */
  newAddress(): Promise<string>;
  stop(): Promise<void>;
}

const BIN = process.env.LITECOIND_BIN ?? "litecoind";
/** a node that neither answers nor exits is hung only after the suite's one guard */
const READY_TIMEOUT_MS = HANG_GUARD_MS;
const POLL_MS = 50;
// generatetoaddress of a few hundred blocks and scans take longer than a status call, and a loaded node far
// longer: a call waits for the node's answer, the suite's guard only against a hang
const RPC_TIMEOUT_MS = HANG_GUARD_MS;
// BIP32 test vector 1 master key as a tpub: deterministic walletless addresses via deriveaddresses.
const FALLBACK_TPUB =
  "tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp";

const hex = (n: number): string => randomBytes(n).toString("hex");

interface Spawned {
  child: ChildProcess;
  port: number;
  p2pPort: number;
  stderr: () => string;
}

async function spawnNode(datadir: string, auth: string[], listen: boolean): Promise<Spawned> {
  const port = await freePort();
  const p2pPort = await freePort();
  // a node others may connect to (to sync a second node): listening on loopback only
  const p2p = listen ? ["-listen=1", "-bind=127.0.0.1", "-discover=0", "-dnsseed=0"] : [];
  const args = [
    ...REGTEST_FLAGS,
    ...p2p,
    `-port=${p2pPort}`,
    `-rpcport=${port}`,
    `-datadir=${datadir}`,
    ...auth,
  ];
  const child = spawn(BIN, args, { stdio: ["ignore", "ignore", "pipe"] });
  trackChild(child);
  let err = "";
  child.stderr?.on("data", (c: Buffer) => {
    if (err.length < 8192) err += c.toString("utf8");
  });
  // An "error" event (e.g. ENOENT) must not crash the worker; readiness polling reports it.
  child.on("error", (e) => {
    err += String(e);
  });
  return { child, port, p2pPort, stderr: () => err };
}

function readCookie(file: string): { user: string; password: string } | null {
  try {
    const text = readFileSync(file, "utf8").trim();
    const i = text.indexOf(":");
    return i > 0 ? { user: text.slice(0, i), password: text.slice(i + 1) } : null;
  } catch {
    return null;
  }
}

/**
 * Polls getblockchaininfo until it answers. Connection refused (RPC not bound yet), a missing
 * cookie and -28 (warm-up) are all "not yet"; a dead process or the deadline is a failure.
 */
async function waitReady(
  s: Spawned,
  creds: () => { user: string; password: string } | null,
): Promise<{ user: string; password: string }> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = "no attempt";
  for (let i = 0; i < READY_TIMEOUT_MS / POLL_MS && Date.now() < deadline; i++) {
    if (hasExited(s.child)) {
      throw new Error(
        `litecoind exited (code ${s.child.exitCode}) before RPC was ready: ${s.stderr().trim()}`,
      );
    }
    const c = creds();
    if (c) {
      try {
        await callRpc("http://127.0.0.1:" + s.port + "/", "getblockchaininfo", [], {
          auth: c,
          timeoutMs: 2_000,
        });
        return c;
      } catch (e) {
        last = (e as Error).message;
        const code = (e as Partial<RpcError>).code;
        if (typeof code === "number" && code !== -28) throw e;
      }
    } else {
      last = "cookie file not written yet";
    }
    await sleep(POLL_MS);
  }
  throw new Error(
    `litecoind RPC not ready after ${READY_TIMEOUT_MS} ms (last: ${last}; stderr: ${s.stderr().trim()})`,
  );
}

export async function startLitecoind(opts: LitecoindOptions = {}): Promise<LitecoinNode> {
  const datadir = mkdtempSync(join(tmpdir(), "chaingw-ltc-"));
  trackDir(datadir);
  const cookieFile = join(datadir, "regtest", ".cookie");
  const fixed = opts.cookie
    ? null
    : { user: opts.rpcUser ?? "u" + hex(8), password: opts.rpcPassword ?? hex(16) };
  const authArgs = fixed ? [`-rpcuser=${fixed.user}`, `-rpcpassword=${fixed.password}`] : [];

  // The RPC port from freePort() can be taken by someone else before litecoind binds it: retry.
  let spawned: Spawned | undefined;
  let creds: { user: string; password: string } | undefined;
  let lastErr: unknown;
  for (let attempt = 0; attempt < 3 && !creds; attempt++) {
    const s = await spawnNode(datadir, authArgs, opts.listen ?? false);
    try {
      creds = await waitReady(s, () => fixed ?? readCookie(cookieFile));
      spawned = s;
    } catch (e) {
      lastErr = e;
      await terminate(s.child, 5_000);
      // Only a bind failure is worth another port; anything else fails at once.
      if (!/bind|Address already in use/i.test(String((e as Error).message))) break;
      rmSync(join(datadir, "regtest"), { recursive: true, force: true });
    }
  }
  if (!spawned || !creds) {
    rmSync(datadir, { recursive: true, force: true });
    untrackDir(datadir);
    throw lastErr instanceof Error ? lastErr : new Error(String(lastErr));
  }

  const { child, port, p2pPort } = spawned;
  const { user, password } = creds;
  const url = `http://127.0.0.1:${port}/`;
  const authUrl = `http://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/`;
  const auth = { user, password };

  const rpc = <T = unknown>(method: string, params: unknown[] = []): Promise<T> =>
    callRpc<T>(url, method, params, { auth, timeoutMs: RPC_TIMEOUT_MS });

  // A wallet gives mined coins a home (sendtoaddress for odd amounts); without one, derive addresses.
  let hasWallet = true;
  try {
    await rpc("createwallet", ["w"]);
  } catch {
    hasWallet = false;
  }
  let derived = 0;
  let descriptor: string | undefined;

  const newAddress = async (): Promise<string> => {
    if (hasWallet) return rpc<string>("getnewaddress", ["", "bech32"]);
    if (!descriptor) {
      const info = await rpc<{ descriptor: string }>("getdescriptorinfo", [`wpkh(${FALLBACK_TPUB}/0/*)`]);
      descriptor = info.descriptor;
    }
    const i = derived++;
    const [addr] = await rpc<string[]>("deriveaddresses", [descriptor, [i, i]]);
    return addr;
  };

  const mine = async (n: number, address?: string): Promise<string[]> =>
    rpc<string[]>("generatetoaddress", [n, address ?? (await newAddress())]);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (!hasExited(child)) {
        try {
          await callRpc(url, "stop", [], { auth, timeoutMs: 5_000 });
        } catch {
          // Fall through to signals below.
        }
        if (!(await waitExit(child, 15_000))) await terminate(child, 5_000);
      }
      rmSync(datadir, { recursive: true, force: true });
      untrackDir(datadir);
    })();
    return stopping;
  };

  const node: LitecoinNode = {
    port,
    p2pPort,
    url,
    authUrl,
    user,
    password,
    datadir,
    cookieFile,
    rpc,
    rawCall: async (body: string) => {
      const r = await postRaw(url, body, { auth, timeoutMs: RPC_TIMEOUT_MS });
      return { status: r.status, text: r.text };
    },
    mine,
    newAddress,
    stop,
  };

  if (opts.blocks && opts.blocks > 0) {
    try {
      await mine(opts.blocks);
    } catch (e) {
      await stop();
      throw e;
    }
  }
  return node;
}
