/**
 * `serve`, round four (issue 57, item 2): an upstream's secrets stay with the operator. An upstream URL
 * with a provider's key in its path (`…/v3/KEY`) and a user:password, in front of a real litecoind (a
 * loopback HTTP fixture that ignores the path): the key, the password and the Basic token serve sends are
 * found in no answer (-32010, -32015, the node's own error echoing them), not on /readyz, /metrics (on
 * their own address), the access log or the notes; no client-facing answer names the upstream's host:port;
 * the 404 does not say the path back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { postRaw } from "./helpers/http.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { freePort } from "./helpers/ports.js";
import { until } from "./helpers/procs.js";
import { PROBE_TIMEOUT_S, type Served, startServe } from "./helpers/serve.js";

const KEY = "f00dfeed0123456789abcdef0badc0de";
const DEAD_KEY = "deadbeef9876543210fedcba98765432";
/** the node's credentials, in the upstream URL (the fixture passes serve's Authorization on to the node) */
let USER: string;
let PASS: string;
let TOKEN: string;

let node: LitecoinNode;
let up: FaultServer;
let gw: Served;
let key: string;
let deadPort: number;
/** every text a client or an unauthenticated page got */
const seen: string[] = [];

beforeAll(async () => {
  node = await startLitecoind({ blocks: 5 });
  up = await startFaultServer({ upstream: { url: node.url } });
  USER = node.user;
  PASS = node.password;
  TOKEN = Buffer.from(`${USER}:${PASS}`).toString("base64");
  /** what a careless upstream says back: our Authorization header, our password, the key in its path */
  const ECHO = `unauthorized: Authorization: Basic ${TOKEN} (${USER}:${PASS}) on /v3/${KEY}`;
  deadPort = await freePort();
  const echo = (status: number) => ({
    kind: "status" as const,
    status,
    body: JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: ECHO } }),
    headers: { "content-type": "application/json" },
  });
  up.setMethodFault("getblockhash", echo(502), (p) => p[0] === 1);
  up.setMethodFault("getblockheader", echo(500));
  up.setMethodFault("getbestblockhash", { kind: "reset" });
  up.setMethodFault("getdifficulty", { kind: "hang" });
  gw = await startServe(
    {
      opsListen: "127.0.0.1:0",
      requestTimeout: 1,
      products: {
        ltc: { chain: "utxo", upstreams: [`http://${USER}:${PASS}@127.0.0.1:${up.port}/v3/${KEY}`] },
        named: {
          chain: "utxo",
          upstreams: [
            { url: `http://127.0.0.1:${deadPort}/v3/${DEAD_KEY}?apikey=${DEAD_KEY}`, name: "provider-b" },
          ],
        },
      },
      health: { interval: 0.5, timeout: PROBE_TIMEOUT_S },
    },
    { keys: [["ltc", "named"]] },
  );
  key = gw.keys[0] as string;
});

afterAll(async () => {
  await gw?.stop();
  await up?.stop();
  await node?.stop();
});

const call = async (method: string, params: unknown[], product = "ltc") => {
  const r = await postRaw(
    `${gw.url}/v1/${product}`,
    JSON.stringify({ jsonrpc: "2.0", id: 9, method, params }),
    {
      headers: { "x-api-key": key },
    },
  );
  seen.push(r.text);
  return { status: r.status, body: JSON.parse(r.text) };
};

const opsUrl = () => /\/readyz and \/metrics on (http:\/\/[^\s;)]+)/.exec(gw.notes())?.[1] as string;

describe("an upstream's secrets never reach a client", () => {
  it("-32010 and -32015 messages, the node's own error echoing them, the 404: no key, password, token or host:port", async () => {
    const ok = await call("getblockcount", []);
    expect(ok.body.result).toBe(5);
    // a balancer's 502 with an error that echoes what serve sent: -32010, the echo scrubbed
    const failed = await call("getblockhash", [1]);
    expect(failed.body.error.code).toBe(-32010);
    expect(failed.body.error.message).toContain("unauthorized: Authorization: Basic ***");
    // the node's own error (500 + JSON-RPC error) passed through: as the node said it, but for what serve sent
    const own = await call("getblockheader", ["00".repeat(32)]);
    expect(own.body.error).toEqual({
      code: -32000,
      message: `unauthorized: Authorization: Basic *** (${USER}:***) on ***`,
    });
    // a reset: -32010 naming the upstream as clients are told it ("upstream 1"), not its address
    const reset = await call("getbestblockhash", []);
    expect(reset.body.error.code).toBe(-32010);
    expect(reset.body.error.message).toContain("upstream 1");
    // a timeout: -32015, the same
    const slow = await call("getdifficulty", []);
    expect(slow.body.error.code).toBe(-32015);
    // the dead upstream, out of the rotation: -32011 for the product, the operator's name nowhere needed
    const none = await call("getblockcount", [], "named");
    expect(none.body.error.code).toBe(-32011);
    // a key pasted into a product's place in the path is not said back
    const nf = await postRaw(`${gw.url}/v1/${KEY}`, "{}", { headers: { "x-api-key": key } });
    expect(nf.status).toBe(404);
    seen.push(nf.text);
    const answers = seen.join("\n");
    for (const secret of [
      KEY,
      DEAD_KEY,
      PASS,
      TOKEN,
      `127.0.0.1:${up.port}`,
      `127.0.0.1:${deadPort}`,
      String(up.port),
    ])
      expect(answers).not.toContain(secret);
  });

  it("/readyz and /metrics on their own address name upstreams by scheme://host:port or the operator's name; the access log and notes carry no secret", async () => {
    await until("the dead upstream's check said", () => gw.notes().includes("provider-b"));
    // on the main address they are not served
    const mainReady = await fetch(`${gw.url}/readyz`);
    expect(mainReady.status).toBe(404);
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    const ready = await (await fetch(`${opsUrl()}/readyz`)).text();
    const metrics = await (await fetch(`${opsUrl()}/metrics`)).text();
    const r = JSON.parse(ready);
    expect(r.products.ltc.upstreams[0].upstream).toBe(`http://127.0.0.1:${up.port}`);
    expect(r.products.named.upstreams[0].upstream).toBe("provider-b");
    expect(metrics).toContain(`upstream="http://127.0.0.1:${up.port}"`);
    expect(metrics).toContain('upstream="provider-b"');
    // the access log's upstream field: the label
    const lines = gw.log().map((l) => JSON.parse(l));
    expect(lines.find((l) => l.method === "getblockcount" && l.status === 200)?.upstream).toBe(
      `http://127.0.0.1:${up.port}`,
    );
    const everything = [ready, metrics, gw.log().join("\n"), gw.notes()].join("\n");
    for (const secret of [KEY, DEAD_KEY, PASS, TOKEN]) expect(everything).not.toContain(secret);
  });
});
