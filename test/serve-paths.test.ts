/**
 * `serve`'s two HTTP paths to an upstream: the quick path (an idempotent read's first attempt, on the
 * gateway's own kept-alive sockets: src/rpc/wire.ts) and node's client (every other attempt: src/rpc/http.ts).
 * Both decide "never left" by one rule (rpc/http.ts failureOf), and that decides whether an upstream leaves
 * the rotation: the same refusal, reset and timeout must give the same outcome on both. And a gateway's user
 * reads the gateway's own words for its answer cap, never the CLI's --max-response.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { postRaw } from "./helpers/http.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { until } from "./helpers/procs.js";
import { PROBE_TIMEOUT_S, type Served, startServe } from "./helpers/serve.js";

/** the quick path: an idempotent read; node's client: a read the registry marks not idempotent */
const PATHS = { quick: ["getblockhash", [1]], client: ["getblockstats", [1]] } as const;
type PathName = keyof typeof PATHS;
const FAULTS = ["refused", "reset", "timeout"] as const;
type FaultName = (typeof FAULTS)[number];

let node: LitecoinNode;
let gw: Served;
let key: string;
const servers = new Map<string, FaultServer>();
/** an upstream that answers the health checks and declares a 300 MB answer to anything else */
let huge: Server;
/** two upstreams on which gettxoutsetinfo (heavy, idempotent) hangs */
const slow: FaultServer[] = [];
const hugeSockets = new Set<Socket>();

const product = (f: FaultName, p: PathName) => `${f}${p}`;

beforeAll(async () => {
  node = await startLitecoind({ blocks: 5 });
  const up = { url: node.url, user: node.user, password: node.password };
  for (const f of FAULTS)
    for (const p of Object.keys(PATHS) as PathName[])
      servers.set(product(f, p), await startFaultServer({ upstream: up }));
  for (let i = 0; i < 2; i++) {
    const s = await startFaultServer({ upstream: up });
    s.setMethodFault("gettxoutsetinfo", { kind: "hang" });
    slow.push(s);
  }
  huge = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      // the health check: the tip and the genesis hash in one array, answered as litecoind does
      type Call = { id: number; method: string; params: unknown[] };
      const calls = JSON.parse(body) as Call[] | Call;
      const list = Array.isArray(calls) ? calls : [calls];
      const health = (c: Call) =>
        c.method === "getblockcount"
          ? 5
          : c.method === "getblockhash" && c.params[0] === 0
            ? "0f".repeat(32)
            : undefined;
      if (list.every((c) => health(c) !== undefined)) {
        const out = list.map((c) => ({ result: health(c), error: null, id: c.id }));
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(Array.isArray(calls) ? out : out[0]));
        return;
      }
      res.writeHead(200, { "content-type": "application/json", "content-length": "300000000" });
      res.write("{");
    });
  });
  huge.on("connection", (s: Socket) => {
    hugeSockets.add(s);
    s.on("close", () => hugeSockets.delete(s));
  });
  await new Promise<void>((ok) => huge.listen(0, "127.0.0.1", ok));
  const hugeUrl = `http://127.0.0.1:${(huge.address() as AddressInfo).port}/`;
  const products: Record<string, unknown> = {
    huge: { chain: "utxo", upstreams: [hugeUrl] },
    slow: { chain: "utxo", upstreams: slow.map((s) => s.url) },
  };
  for (const [name, s] of servers) products[name] = { chain: "utxo", upstreams: [s.url] };
  gw = await startServe(
    { products, requestTimeout: 1.5, health: { interval: 600, timeout: PROBE_TIMEOUT_S } },
    { keys: [[...Object.keys(products)]] },
  );
  key = gw.keys[0] as string;
});

afterAll(async () => {
  await gw?.stop();
  for (const s of hugeSockets) s.destroy();
  await new Promise((ok) => huge?.close(ok));
  await Promise.all([...servers.values(), ...slow].map((s) => s.stop()));
  await node?.stop();
});

async function call(productName: string, path: PathName | [string, readonly unknown[]]) {
  const [method, params] = typeof path === "string" ? PATHS[path] : path;
  const r = await postRaw(
    `${gw.url}/v1/${productName}`,
    JSON.stringify({ jsonrpc: "2.0", id: 9, method, params }),
    { headers: { "x-api-key": key } },
  );
  const error = (JSON.parse(r.text) as { error?: { code: number; message: string } }).error;
  return { status: r.status, code: error?.code, message: error?.message ?? "" };
}

/** One fault met on one path: what the client got, and whether the upstream left the rotation. */
async function outcome(f: FaultName, path: PathName) {
  const name = product(f, path);
  const s = servers.get(name) as FaultServer;
  const [method] = PATHS[path];
  if (f === "refused") await s.stop();
  // the call's own params: the health checks' getblockhash [0] is not the call under test
  else s.setMethodFault(method, f === "reset" ? { kind: "reset" } : { kind: "hang" }, (p) => p[0] === 1);
  const answer = await call(name, path);
  // whether it left, as the process holds it now (/readyz); its note is written as it leaves, and arrives
  // on the process's stderr in its own time
  const ready = (await (await fetch(`${gw.url}/readyz`)).json()) as {
    products: Record<string, { healthy: number }>;
  };
  const note = () => gw.notes().includes(`of ${name} out of the rotation`);
  if (ready.products[name]?.healthy === 0) await until(`the note that ${name}'s upstream left`, note);
  return { ...answer, left: note() };
}

describe("serve's quick path and node's client: one rule for 'never left'", () => {
  it("a refused connection takes the upstream out of the rotation on both paths; a reset and a timeout on neither", async () => {
    const seen: Record<string, unknown> = {};
    for (const f of FAULTS) {
      const quick = await outcome(f, "quick");
      const client = await outcome(f, "client");
      seen[f] = { quick, client };
      expect(quick.left, `${f}: ${JSON.stringify(seen[f])}`).toBe(f === "refused");
      expect(client.left, `${f}: ${JSON.stringify(seen[f])}`).toBe(quick.left);
      expect(client.status, f).toBe(quick.status);
      expect(client.code, f).toBe(quick.code);
      const words = { refused: /refused/i, reset: /reset/i, timeout: /within|timed out|timeout/i }[f];
      expect(quick.message, f).toMatch(words);
      expect(client.message, f).toMatch(words);
    }
  });
});

describe("the gateway's answer cap", () => {
  it("is named in the gateway's words on both paths, never as the CLI's --max-response", async () => {
    for (const path of Object.keys(PATHS) as PathName[]) {
      const r = await call("huge", path);
      expect(r.message, path).toMatch(
        /300000000 bytes exceeds the \d+-byte cap \(the gateway's answer cap\)/,
      );
      expect(r.message, path).not.toMatch(/--max-response/);
    }
  });
});

describe("the gateway's timeouts", () => {
  it("a heavy call that timed out on both upstreams is told in the gateway's words, not the CLI's flags", async () => {
    const r = await call("slow", ["gettxoutsetinfo", []]);
    expect(r.message).toMatch(/heavy call the node may still be computing/);
    expect(r.message).toMatch(/the gateway's request timeout/);
    expect(r.message).not.toMatch(/--(request-)?timeout/);
  });
});
