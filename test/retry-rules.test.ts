/**
 * The retry rules, proven with real sockets: a fault-injecting server in front of the real regtest node
 * as the first endpoint, a counting pass-through proxy as the second. For each fault, three kinds of
 * method: idempotent (getblockheader), unmarked (getblockstats) and scantxoutset start (heavy, never moved).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransportError } from "../src/errors/index.js";
import { findMethod } from "../src/methods/index.js";
import { prepare, send } from "../src/methods/prepare.js";
import { JsonRpcClient } from "../src/rpc/client.js";
import { nodeEndpoint } from "../src/rpc/endpoint.js";
import {
  type Fault,
  type FaultEvent,
  type FaultServer,
  refusedUrl,
  startFaultServer,
} from "./fixtures/faults.js";
import { rawServer, sendJson } from "./fixtures/forward.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { sleep, until } from "./helpers/procs.js";

let ltc: LitecoinNode;
let bad: FaultServer; // first endpoint, misbehaving
let good: FaultServer; // second endpoint, healthy
let hash: string;
let addr: string;

beforeAll(async () => {
  ltc = await startLitecoind();
  addr = await ltc.newAddress();
  await ltc.mine(5, addr);
  hash = await ltc.rpc<string>("getblockhash", [2]);
  const upstream = { url: ltc.url, user: ltc.user, password: ltc.password };
  // one log for both: the order in which the endpoints saw requests arrive and end
  const events: FaultEvent[] = [];
  [bad, good] = await Promise.all([
    startFaultServer({ upstream, name: "bad", events }),
    startFaultServer({ upstream, name: "good", events }),
  ]);
});

afterAll(async () => {
  await Promise.all([bad?.stop(), good?.stop()]);
  await ltc?.stop();
});

const methods = {
  idempotent: () => ["getblockheader", hash],
  unmarked: () => ["getblockstats", "2", '["height"]'],
  scanStart: () => ["scantxoutset", "start", JSON.stringify([`addr(${addr})`])],
} as const;
type Kind = keyof typeof methods;

async function run(kind: Kind, fault: Fault, endpoints: string[], extra: string[] = []) {
  bad.setFault(fault);
  const b0 = bad.hits;
  const g0 = good.hits;
  const e0 = bad.events.length;
  // scantxoutset start has a timeout of its own (--scan-timeout); the others use --request-timeout
  // the defaults below, each unless the case gives its own (a repeated option is refused: exit 2)
  const defaults: [string, string][] = [
    ["--request-timeout", "1"],
    ["--scan-timeout", "1"],
    ["--retries", "0"],
  ];
  const args = [
    ...methods[kind](),
    "--json",
    ...defaults.filter(([flag]) => !extra.includes(flag)).flat(),
    ...extra,
  ];
  for (const u of endpoints) args.push("--url", u);
  const r = await runCli(args);
  // what each endpoint saw of this run, in order: "bad arrived", "good answered", …
  const seen = () => bad.events.slice(e0).map((e) => `${e.server} ${e.event}`);
  return { ...r, badHits: bad.hits - b0, goodHits: good.hits - g0, seen };
}

/** Waits until every request of the run has ended at its endpoint (a hung one closes as the process exits). */
async function settled(seen: () => string[]): Promise<string[]> {
  const ended = (l: string[]) => l.filter((e) => !e.endsWith(" arrived")).length;
  await until("every request of the run ended at its endpoint", () => {
    const l = seen();
    return ended(l) === l.length - ended(l);
  });
  return seen();
}

// faults where the request may have reached the upstream: only idempotent methods move on
const maybeReached: [string, Fault][] = [
  ["hang (timeout after send)", { kind: "hang" }],
  ["HTTP 503 work queue", { kind: "status", status: 503, body: "Work queue depth exceeded" }],
  ["HTTP 502", { kind: "status", status: 502, body: "bad gateway" }],
  ["HTTP 504", { kind: "status", status: 504 }],
  ["HTTP 429 + Retry-After", { kind: "status", status: 429, headers: { "retry-after": "1" } }],
  ["truncated JSON", { kind: "truncated" }],
  ["wrong id", { kind: "wrongId" }],
  ["HTML error page", { kind: "html" }],
  ["connection reset", { kind: "reset" }],
  [
    "JSON-RPC rate limit -32005",
    {
      kind: "status",
      status: 200,
      body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"limit exceeded"}}',
    },
  ],
];

describe.each(maybeReached)("fault %s on the first endpoint", (_name, fault) => {
  it("idempotent method: moves to the second endpoint, exit 0", async () => {
    const r = await run("idempotent", fault, [bad.url, good.url]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).hash).toBe(hash);
    expect(r.badHits).toBe(1);
    expect(r.goodHits).toBe(1);
  });
  it("unmarked method: not retried, exit 3 saying why; zero hits on the second", async () => {
    const r = await run("unmarked", fault, [bad.url, good.url]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain("not marked idempotent");
    expect(r.stdout).toBe("");
    expect(r.badHits).toBe(1);
    expect(r.goodHits).toBe(0);
  });
  it("scantxoutset start: never moved, exit 3; zero hits on the second", async () => {
    const r = await run("scanStart", fault, [bad.url, good.url]);
    expect(r.exitCode).toBe(3);
    expect(r.badHits).toBe(1);
    expect(r.goodHits).toBe(0);
  });
  it("second in the list: never reached when the first answers", async () => {
    const r = await run("idempotent", fault, [good.url, bad.url]);
    expect(r.exitCode).toBe(0);
    expect(r.badHits).toBe(0);
    expect(r.goodHits).toBe(1);
  });
});

describe("the request provably never arrived: any method moves on", () => {
  it.each(Object.keys(methods) as Kind[])("connection refused, %s", async (kind) => {
    const dead = await refusedUrl();
    // timeouts of two minutes: a tool that waited one on the refused port could not hide it in a load's delay
    const long = ["--request-timeout", "120", "--scan-timeout", "120"];
    const r = await run(kind, { kind: "pass" }, [dead, good.url], ["-v", ...long]);
    expect(r.exitCode).toBe(0);
    expect(r.goodHits).toBe(1);
    // moved on for the reason the socket gave, with no backoff between passes: the tool's own account of
    // the attempt, which took a fraction of the 120 s it could have waited (however loaded the host)
    const m = new RegExp(`→ ${dead}: connection refused after (\\d+) ms; trying the next endpoint\n`).exec(
      r.stderr,
    );
    expect(m, r.stderr).not.toBeNull();
    expect(Number(m?.[1])).toBeLessThan(60_000);
    expect(r.stderr).not.toMatch(/no complete answer|waiting \d+ ms/);
  });

  it("every endpoint refused: exit 3 naming each endpoint, no credentials", async () => {
    const [d1, d2] = [await refusedUrl(), await refusedUrl()];
    const r = await runCli([
      "getblockchaininfo",
      "--url",
      d1.replace("http://", "http://u:secretpw1@"),
      "--url",
      d2,
      "--retries",
      "1",
    ]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain(new URL(d1).host);
    expect(r.stderr).toContain(new URL(d2).host);
    expect(r.stderr).toContain("connection refused");
    expect(r.stderr).not.toContain("secretpw1");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});

describe("deterministic node errors are final", () => {
  it.each(Object.keys(methods) as Kind[])(
    "-5 over HTTP 500 → exit 1, zero hits on the second (%s shape)",
    async () => {
      bad.setFault({ kind: "pass" });
      const b0 = bad.hits;
      const g0 = good.hits;
      const r = await runCli([
        "getblock",
        "00".repeat(32),
        "--url",
        bad.url,
        "--url",
        good.url,
        "--retries",
        "2",
      ]);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain("-5");
      expect(bad.hits - b0).toBe(1);
      expect(good.hits - g0).toBe(0);
    },
  );

  it("-8 invalid parameter through the node (a hash the node rejects) is final too", async () => {
    bad.setFault({ kind: "pass" });
    const g0 = good.hits;
    const r = await runCli(["getblockstats", "999999", "--url", bad.url, "--url", good.url]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("-8");
    expect(good.hits - g0).toBe(0);
  });
});

describe("retry passes, backoff and deadlines", () => {
  it("idempotent on one failing endpoint: 1 + --retries attempts, then exit 3", async () => {
    const r = await run("idempotent", { kind: "status", status: 503 }, [bad.url], ["--retries", "2"]);
    expect(r.exitCode).toBe(3);
    expect(r.badHits).toBe(3);
  });

  it("Retry-After is honoured between passes", async () => {
    const r = await run(
      "idempotent",
      { kind: "status", status: 429, headers: { "retry-after": "1" } },
      [bad.url],
      ["--retries", "1"],
    );
    expect(r.exitCode).toBe(3);
    expect(r.badHits).toBe(2);
    expect(r.durationMs).toBeGreaterThanOrEqual(1000);
  });

  it("a hanging endpoint costs at most the request timeout for an idempotent read", async () => {
    const r = await run("idempotent", { kind: "hang" }, [bad.url, good.url], ["-v"]);
    expect(r.exitCode).toBe(0);
    expect(r.durationMs).toBeGreaterThanOrEqual(1000);
    // it gave up on the hung endpoint at its request timeout (1 s), by its own word, and closed that
    // request before it asked the next endpoint
    expect(r.stderr).toContain(`→ ${bad.url}: no complete answer within 1000 ms after `);
    expect(r.stderr).toMatch(/within 1000 ms after \d+ ms; trying the next endpoint\n/);
    expect(r.stderr).not.toMatch(/waiting \d+ ms/);
    expect(await settled(r.seen)).toEqual([
      "bad arrived",
      "bad closed unanswered",
      "good arrived",
      "good answered",
    ]);
  });

  it("--hedge asks the second endpoint early; the answer arrives well before the timeout", async () => {
    const r = await run(
      "idempotent",
      { kind: "hang" },
      [bad.url, good.url],
      ["--request-timeout", "60", "--hedge", "0.2", "-v"],
    );
    expect(r.exitCode).toBe(0);
    expect(r.goodHits).toBe(1);
    expect(r.stderr).toContain(`→ ${bad.url}: no answer after 200 ms; hedging to ${good.url}`);
    // the second endpoint answered while the first's request was still open (it ends when the process
    // exits): the hedge did not wait for the 60 s timeout, whatever the host's load
    expect(await settled(r.seen)).toEqual([
      "bad arrived",
      "good arrived",
      "good answered",
      "bad closed unanswered",
    ]);
    expect(r.stderr).not.toMatch(/no complete answer/);
  });

  it("the overall --timeout bounds everything", async () => {
    const r = await run(
      "idempotent",
      { kind: "hang" },
      [bad.url],
      ["--request-timeout", "30", "--timeout", "1", "--retries", "5"],
    );
    expect(r.exitCode).toBe(3);
    // the one attempt was given what was left of the 1 s, not the 30 s request timeout, and no pass
    // followed: the tool's own account (the time left it names), one request, closed unanswered
    const m = /no complete answer within (\d+) ms \(overall --timeout reached\)/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect(Number(m?.[1])).toBeLessThanOrEqual(1000);
    expect(r.badHits).toBe(1);
    expect(await settled(r.seen)).toEqual(["bad arrived", "bad closed unanswered"]);
  });

  it("a slow but healthy first endpoint answers; the second is never asked", async () => {
    const r = await run("idempotent", { kind: "delay", ms: 300 }, [bad.url, good.url]);
    expect(r.exitCode).toBe(0);
    expect(r.badHits).toBe(1);
    expect(r.goodHits).toBe(0);
  });
});

describe("the id echo is checked exactly", () => {
  it('a string id "1" for request id 1 is not our answer (exit 3); the number 1 is', async () => {
    // each CLI process numbers its calls from 1
    bad.setFault({
      kind: "status",
      status: 200,
      body: '{"jsonrpc":"2.0","id":"1","result":5}',
      headers: { "content-type": "application/json" },
    });
    const r = await runCli(["rpc", "getblockcount", "--url", bad.url, "--retries", "0"]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('answer carries id "1", expected 1');
    bad.setFault({
      kind: "status",
      status: 200,
      body: '{"jsonrpc":"2.0","id":1,"result":5}',
      headers: { "content-type": "application/json" },
    });
    const ok = await runCli(["rpc", "getblockcount", "--url", bad.url, "--json"]);
    expect(ok.stdout).toBe("5\n");
    bad.setFault({ kind: "pass" });
  });
});

describe("--verbose tells each attempt, never a secret", () => {
  it("names endpoint, outcome, duration and why it moved on", async () => {
    bad.setFault({ kind: "status", status: 503 });
    const withCreds = bad.url.replace("http://", "http://alice:hunter2pw@");
    const r = await runCli([
      "-v",
      "getblockheader",
      hash,
      "--url",
      withCreds,
      "--url",
      good.url,
      "--request-timeout",
      "1",
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(`getblockheader → ${bad.url}: HTTP 503 .* after \\d+ ms; trying the next endpoint`),
    );
    expect(r.stderr).toMatch(new RegExp(`getblockheader → ${good.url}: ok in \\d+ ms`));
    expect(r.stderr).not.toContain("hunter2pw");
    expect(r.stderr).not.toContain("alice");
  });
});

describe("heavy methods are rate limited on the client", () => {
  it("rpc of a heavy method keeps its marks; --heavy-rate spaces calls (batch work uses the same limiter)", async () => {
    bad.setFault({ kind: "pass" });
    const r = await runCli(["-v", "--json", "gettxoutsetinfo", "--url", bad.url, "--heavy-rate", "1"]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).height).toBe(5);
  });
});

describe("fixes from review: long scans, deterministic limits, balancer errors, unreadable batch answers", () => {
  it("scantxoutset start gets --scan-timeout, not --request-timeout", async () => {
    bad.setMethodFault("scantxoutset", { kind: "delay", ms: 1500 }, (p) => p[0] === "start");
    try {
      const r = await runCli([
        ...methods.scanStart(),
        "--json",
        "--url",
        bad.url,
        "--request-timeout",
        "0.5",
        "--timeout",
        "1",
        "--scan-timeout",
        "20",
      ]);
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout).success).toBe(true);
    } finally {
      bad.setMethodFault("scantxoutset", null);
    }
  });

  it("-32005 'query returned more than 10000 results' is the request's own limit: final, one hit", async () => {
    const body =
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"query returned more than 10000 results"}}';
    const r = await run(
      "idempotent",
      { kind: "status", status: 200, body, headers: { "content-type": "application/json" } },
      [bad.url, good.url],
    );
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("query returned more than 10000 results");
    expect(r.goodHits).toBe(0);
  });

  it("a balancer's JSON-RPC error on HTTP 503 moves an idempotent read to the next endpoint", async () => {
    const body = '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"no healthy upstream"}}';
    const r = await run(
      "idempotent",
      { kind: "status", status: 503, body, headers: { "content-type": "application/json" } },
      [bad.url, good.url],
    );
    expect(r.exitCode).toBe(0);
    expect(r.goodHits).toBe(1);
  });

  it("batch: an unreadable HTTP 200 answer re-sends idempotent entries only", async () => {
    bad.setFault({
      kind: "status",
      status: 200,
      body: "<html>oops</html>",
      headers: { "content-type": "text/html" },
    });
    try {
      const input = [
        JSON.stringify({ method: "getblockstats", params: [1, ["height"]] }),
        JSON.stringify({ method: "getblockheader", params: [hash] }),
        JSON.stringify({ method: "getblockstats", params: [2, ["height"]] }),
      ].join("\n");
      const b0 = bad.hitsByMethod.getblockstats ?? 0;
      const r = await runCli(["batch", "--url", bad.url, "--url", good.url, "--retries", "0"], { input });
      expect(r.exitCode).toBe(3);
      const out = r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(out[0].error.message).toContain("not marked idempotent");
      expect(out[1].result.hash).toBe(hash);
      expect(out[2].error.message).toContain("not marked idempotent");
      // the array reached the bad endpoint once; getblockstats was never sent again anywhere
      expect((bad.hitsByMethod.getblockstats ?? 0) - b0).toBe(2);
    } finally {
      bad.setFault({ kind: "pass" });
    }
  });

  it("batch of a file that does not exist: exit 2, nothing sent", async () => {
    const b0 = bad.hits;
    const r = await runCli(["batch", "/nonexistent/requests.jsonl", "--url", bad.url]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("cannot read /nonexistent/requests.jsonl");
    expect(bad.hits).toBe(b0);
  });

  it("a comma inside a --url password is part of the password, and never printed", async () => {
    const r = await runCli([
      "getblockchaininfo",
      "--url",
      "http://user:top,secret@127.0.0.1:1/",
      "--retries",
      "0",
    ]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).not.toContain("top,secret");
    expect(r.stderr).not.toContain("secret");
  });
});

describe("which calls wait the heavy timeout: one registry fact, MethodDef.slow (issue 39, round 2)", () => {
  it("gettxoutsetinfo waits past the request timeout; eth_getLogs, heavy too, does not; each sent once", async () => {
    const hits: Record<string, number> = {};
    const node = await rawServer(async (body, _req, res) => {
      const { id, method } = JSON.parse(body.toString("utf8"));
      hits[method] = (hits[method] ?? 0) + 1;
      // as a node working through a whole UTXO set, or a large log range
      await sleep(800);
      sendJson(res, 200, `{"jsonrpc":"2.0","result":[],"id":${id}}`);
    });
    try {
      const client = new JsonRpcClient({
        endpoints: [nodeEndpoint(node.url)],
        connectTimeoutMs: 2000,
        requestTimeoutMs: 300,
        // a minute: an eth_getLogs given it would get the answer (800 ms) instead of timing out
        heavyTimeoutMs: 60_000,
        deadlineMs: 10_000,
        retries: 2,
        maxBodyBytes: 1 << 20,
        verifyTls: true,
        heavyRate: 0,
      });
      const slow = findMethod("gettxoutsetinfo", "utxo");
      const logs = findMethod("eth_getLogs", "evm");
      expect([slow.slow, logs.slow, logs.marks.heavy]).toEqual([true, undefined, true]);
      const answered = await send(client, prepare(slow, { params: [] }), { scanTimeoutMs: 0 });
      expect(answered.raw).toBe("[]");
      const refused = await send(client, prepare(logs, { params: [{ fromBlock: "0x0" }] }), {
        scanTimeoutMs: 0,
      }).catch((e: Error) => e);
      // before: eth_getLogs waited the 900 s of gettxoutsetinfo. The node answers each call after 800 ms:
      // a timeout rather than that answer shows it was given the 300 ms, not the heavy minute (timers of
      // one process fire in order, whatever the host's load)
      expect(refused).toBeInstanceOf(TransportError);
      expect((refused as Error).message).toContain("--request-timeout");
      // heavy: a timed-out log query is not sent again (the node may still be computing it)
      expect(hits).toEqual({ gettxoutsetinfo: 1, eth_getLogs: 1 });
    } finally {
      await node.close();
    }
  });
});
