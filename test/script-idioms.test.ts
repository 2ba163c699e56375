/**
 * Issue 49: chaingw as a shell script runs it — the built command on PATH, in `bash -c` with `set -euo
 * pipefail`, its output redirected to files, /dev/full, a full tmpfs, past `ulimit -f`, into pipes that
 * close early, in `env -i` — beside litecoin-cli on the same litecoind where it has the same command.
 */
import { execFile, execSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJsonParams } from "../src/methods/raw-params.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { freePort } from "./helpers/ports.js";
import { HANG_GUARD_MS, trackDir } from "./helpers/procs.js";
import { spawnPty } from "./helpers/pty.js";

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
    timeout: HANG_GUARD_MS,
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
});

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
  });

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
  });

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
  });

  it("control: a redirect to a file that has room is whole and exit 0", async () => {
    const r = await sh("chaingw getblockheader --range 0..101 > all.jsonl; wc -l < all.jsonl");
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("102");
    expect(readFileSync(join(dir, "all.jsonl"), "utf8").split("\n").length).toBe(103);
  });
});

/**
 * A recording stand-in for a node on loopback: answers every call `null` (as bitcoind's JSON-RPC 1.0
 * envelope) and keeps the params of the last request, so litecoin-cli's and chaingw's can be compared.
 */
async function recorder(): Promise<{ url: string; port: number; last: () => unknown; close: () => void }> {
  let last: unknown;
  const server: Server = createServer((q, r) => {
    let body = "";
    q.on("data", (c) => {
      body += c;
    });
    q.on("end", () => {
      const req = JSON.parse(body);
      last = req.params;
      r.setHeader("content-type", "application/json");
      r.end(JSON.stringify({ result: null, error: null, id: req.id }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://u:p@127.0.0.1:${port}/`,
    port,
    last: () => last,
    close: () => server.close(),
  };
}

/** litecoin-cli against the recorder: the params it sent. */
const cliSent = (port: number, args: string[]) =>
  new Promise<void>((ok) =>
    execFile("litecoin-cli", ["-regtest", `-rpcport=${port}`, "-rpcuser=u", "-rpcpassword=p", ...args], () =>
      ok(),
    ),
  );

/** Hidden methods litecoind's `help` does not list, whose params bitcoin-cli still converts. */
const HIDDEN = [
  "setmocktime",
  "mockscheduler",
  "waitforblockheight",
  "waitforblock",
  "waitfornewblock",
  "estimaterawfee",
  "addpeeraddress",
  "echojson",
];

describe("item 2: rpc types params as litecoin-cli does", () => {
  it("our table of JSON params is litecoin-cli 0.21's, method by method, by position and by name", async () => {
    const rec = await recorder();
    try {
      const help = await sh("litecoin-cli $LTC help");
      const methods = [
        ...help.stdout
          .split("\n")
          .filter((l) => /^[a-z]/.test(l))
          .map((l) => l.split(" ")[0]),
        ...HIDDEN,
      ];
      expect(methods.length).toBeGreaterThan(130);
      const table = cliJsonParams();
      const seen = new Set<string>();
      for (const m of methods) {
        // twelve params of text "1": the ones it reads as JSON go out as the number 1
        await cliSent(rec.port, [m, ...Array(12).fill("1")]);
        const sent = rec.last() as unknown[];
        const json = sent.flatMap((v, i) => (v === 1 ? [i] : []));
        expect(json, m).toEqual([...(table.get(m)?.positions ?? [])].sort((a, b) => a - b));
        if (json.length) seen.add(m);
        const names = [...(table.get(m)?.names ?? [])];
        if (!names.length) continue;
        // -named: the table's names as JSON, another name as the text
        await cliSent(rec.port, ["-named", m, ...names.map((n) => `${n}=1`), "other_name=1"]);
        const byName = rec.last() as Record<string, unknown>;
        for (const n of names) expect(byName[n], `${m} ${n}`).toBe(1);
        expect(byName.other_name).toBe("1");
      }
      // every entry of the table was met among the node's methods
      expect([...table.keys()].filter((m) => !seen.has(m))).toEqual([]);
    } finally {
      rec.close();
    }
  });

  it("chaingw rpc sends what litecoin-cli sends, for methods outside the registry (a recording node)", async () => {
    const rec = await recorder();
    try {
      const cases: string[][] = [
        ["getaddressesbylabel", "123"],
        ["setlabel", "rltc1qd776qpzepf72n4jv8gww25ychu8jzjd00v9awp", "007"],
        ["signmessage", "addr", "true"],
        ["sendtoaddress", "addr", "0.1", "1", "2", "true", "false", "6", "economical", "true"],
        ["listunspent", "0", "9999999", '["a","b"]', "true", '{"minimumAmount":0.005}'],
        ["createwallet", "123", "true", "false", "", "false", "true"],
        ["listtransactions", "*", "10", "0", "true"],
        ["lockunspent", "true", '[{"txid":"aa","vout":1}]'],
        ["settxfee", "0.00001000"],
        ["walletpassphrase", "secret 1", "60"],
        ["echojson", "1", "[2]", '{"a":3}', "null"],
      ];
      for (const c of cases) {
        await cliSent(rec.port, c);
        const theirs = rec.last();
        const ours = await sh(`chaingw --url ${rec.url} rpc ${c.map((a) => `'${a}'`).join(" ")}`);
        expect(ours.exitCode, `${c[0]}: ${ours.stderr}`).toBe(0);
        expect(rec.last(), c.join(" ")).toEqual(theirs);
        // -named the same
        if (c[0] === "listtransactions") {
          await cliSent(rec.port, ["-named", c[0], "label=7", "count=5"]);
          const named = rec.last();
          await sh(`chaingw --url ${rec.url} rpc --named listtransactions label=7 count=5`);
          expect(rec.last()).toEqual(named);
        }
      }
      // text where bitcoin-cli wants JSON: refused before sending, naming the param (litecoin-cli exits 1)
      const bad = await sh(`chaingw --url ${rec.url} rpc listunspent x`);
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toContain(
        'rpc listunspent: param 1 is JSON (a number, true/false, an array or an object), got "x"',
      );
      // --json-params: chaingw's guessing, for those who want it
      await sh(`chaingw --url ${rec.url} rpc getaddressesbylabel 123 --json-params`);
      expect(rec.last()).toEqual([123]);
    } finally {
      rec.close();
    }
  });

  it("on the real node: `rpc getaddressesbylabel 123` finds the label beside litecoin-cli; registry methods typed by the registry", async () => {
    const addr = await node.newAddress();
    await node.rpc("setlabel", [addr, "123"]);
    const theirs = await sh("litecoin-cli $LTC getaddressesbylabel 123");
    expect(theirs.exitCode, theirs.stderr).toBe(0);
    const ours = await sh("chaingw --json rpc getaddressesbylabel 123");
    expect(ours.exitCode, ours.stderr).toBe(0);
    expect(JSON.parse(ours.stdout)).toEqual(JSON.parse(theirs.stdout));
    expect(Object.keys(JSON.parse(ours.stdout))).toContain(addr);
    // a registry method: its height is a number, as the registry says
    const h = await sh("chaingw rpc getblockhash 1; litecoin-cli $LTC getblockhash 1");
    const [a, b] = h.stdout.trim().split("\n");
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a).toBe(b);
  });
});

/** Every stderr line of a --json run is one JSON object; they are returned parsed. */
function jsonLines(stderr: string): Record<string, Record<string, unknown>>[] {
  return stderr
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

describe("item 3: one exit code by the README's precedence; --json summaries are JSON", () => {
  const lines = [
    '{"method":"getblockcount"}',
    '{"method":"getblockhash","params":["x"]}',
    '{"method":"getblockhash","params":[0]}',
  ].join("\n");

  it("a dead node beside a bad line: 3 (was 2), in batch, --range and reserves; the summary says both", async () => {
    const dead = `http://u:p@127.0.0.1:${await freePort()}/`;
    const b = await sh(`printf '%s\n' '${lines.split("\n").join("' '")}' | chaingw --url ${dead} batch`);
    expect(b.exitCode, b.stderr).toBe(3);
    expect(b.stderr).toMatch(/^chaingw batch: 0 ok, 0 node errors, 1 bad input lines, 2 unanswered: /);
    const j = await sh(
      `printf '%s\n' '${lines.split("\n").join("' '")}' | chaingw --json --url ${dead} batch`,
    );
    expect(j.exitCode).toBe(3);
    const [summary] = jsonLines(j.stderr);
    expect(summary.summary).toMatchObject({
      ok: 0,
      node_errors: 0,
      bad_input: 1,
      unanswered: 2,
      exit_code: 3,
    });
    const r = await sh(`chaingw --url ${dead} getblockheader --range 1..5`);
    expect(r.exitCode).toBe(3);
    const addr = await node.newAddress();
    const s = await sh(`chaingw --url ${dead} reserves scan ${addr}`);
    expect(s.exitCode).toBe(3);
    // --stdin: one call, unanswered: 3; a bad param refused before any call: 2, nothing sent
    expect((await sh(`echo 1 | chaingw --url ${dead} getblockhash --stdin`)).exitCode).toBe(3);
    expect((await sh(`echo x | chaingw --url ${dead} getblockhash --stdin`)).exitCode).toBe(2);
  });

  it("credentials refused beside a bad line: 4; a bad line beside a node's error: 2; node errors alone: 1", async () => {
    const wrong = node.authUrl.replace(`:${node.password}@`, ":wrong@");
    const a = await sh(`printf '%s\n' '${lines.split("\n").join("' '")}' | chaingw --url '${wrong}' batch`);
    expect(a.exitCode, a.stderr).toBe(4);
    const mixed = await sh(
      `printf '%s\n' '{"method":"getblockhash","params":[99999]}' '{"method":"getblockhash","params":["x"]}' '{"method":"getblockcount"}' | chaingw batch`,
    );
    expect(mixed.exitCode, mixed.stderr).toBe(2);
    const nodeErr = await sh(
      `printf '%s\n' '{"method":"getblockhash","params":[99999]}' | chaingw --json batch`,
    );
    expect(nodeErr.exitCode).toBe(1);
    expect(jsonLines(nodeErr.stderr)[0].summary).toMatchObject({ node_errors: 1, exit_code: 1 });
  });

  it("--json: every stderr line is a JSON object (the --range tip note, the summary)", async () => {
    const r = await sh("chaingw --json getblockheader --range 95..99999 > /dev/null");
    expect(r.exitCode, r.stderr).toBe(0);
    const [note] = jsonLines(r.stderr);
    expect(note.note).toMatchObject({ tip: await node.rpc("getblockcount"), asked: 99999 });
  });
});

describe("item 4: what a script captures is the value", () => {
  let anvil: AnvilNode;
  const CAST = fileURLToPath(new URL("../node_modules/.bin/cast", import.meta.url));
  beforeAll(async () => {
    anvil = await startAnvil();
    await anvil.rpc("anvil_mine", ["0x64"]);
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it("n=$(chaingw eth_blockNumber) is the node's 0x64 alone; cast's 100 is the same number; --json unchanged", async () => {
    const r = await sh(
      `n=$(chaingw --url ${anvil.url} eth_blockNumber); c=$(${CAST} block-number --rpc-url ${anvil.url}); echo "$n $((n)) $c"; chaingw --url ${anvil.url} --json eth_blockNumber`,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('0x64 100 100\n"0x64"\n');
    // the same on the UTXO side: a number token as the node sent it
    const d = await sh('test "$(chaingw getdifficulty)" = "$(litecoin-cli $LTC getdifficulty)" && echo same');
    expect(d.stdout).toBe("same\n");
  });

  it("on a terminal the decimal stays beside it", async () => {
    const p = spawnPty(["--url", anvil.url, "eth_blockNumber"], { env: { NO_COLOR: "1" } });
    expect((await p.done).code).toBe(0);
    expect(p.screen()).toContain("0x64  (100)");
  });

  it('a null prints nothing on stdout, its note on stderr: [ -z "$(…)" ] holds beside litecoin-cli; --json prints null', async () => {
    const h = (await sh("chaingw getbestblockhash")).stdout.trim();
    // the coinbase of the tip is not spendable yet, but exists; vout 7 does not
    const r = await sh(
      `[ -z "$(chaingw gettxout ${h} 7)" ] && echo empty; [ -z "$(litecoin-cli $LTC gettxout ${h} 7)" ] && echo empty too`,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("empty\nempty too\n");
    expect(r.stderr).toBe("chaingw: null (gettxout: not found)\n");
    const j = await sh(`chaingw --json gettxout ${h} 7`);
    expect([j.exitCode, j.stdout, j.stderr]).toEqual([0, "null\n", ""]);
    const e = await sh(`chaingw --url ${anvil.url} eth_getTransactionReceipt 0x${"ab".repeat(32)}`);
    expect([e.exitCode, e.stdout]).toEqual([0, ""]);
    expect(e.stderr).toMatch(/^chaingw: null \(eth_getTransactionReceipt: not found — /);
  });
});

describe("item 5: the smaller things a script trips on", () => {
  it("help and help COMMAND exit 0 (stdout); chaingw alone and help of an unknown command exit 2", async () => {
    const h = await sh(
      "chaingw help | head -1; chaingw help getblock | head -1; chaingw help reserves scan | head -1",
    );
    expect(h.exitCode, h.stderr).toBe(0);
    expect(h.stdout).toBe(
      "Usage: chaingw [options] [command]\nUsage: chaingw getblock [options] [blockhash] [verbosity]\nUsage: chaingw reserves [options] [command]\n",
    );
    expect((await sh("chaingw")).exitCode).toBe(2);
    expect((await sh("chaingw help nosuchcommand")).exitCode).toBe(2);
  });

  it("the help's workflows point loop-writers to --range and batch", async () => {
    const h = await sh("chaingw --help");
    const workflows = h.stdout.slice(h.stdout.indexOf("Workflows:"), h.stdout.indexOf("Options:"));
    expect(workflows).toMatch(
      /chaingw getblockheader --range 1\.\.5000 +many calls: one process, not a loop/,
    );
    expect(workflows).toMatch(/chaingw batch calls\.jsonl/);
  });

  it("TERM=dumb on a terminal: no colour (xterm: colour)", async () => {
    const colour = spawnPty(["--url", node.authUrl, "getblockchaininfo"], {
      env: { TERM: "xterm-256color" },
    });
    expect((await colour.done).code).toBe(0);
    expect(colour.raw()).toMatch(/\x1b\[36m/);
    const dumb = spawnPty(["--url", node.authUrl, "getblockchaininfo"], { env: { TERM: "dumb" } });
    expect((await dumb.done).code).toBe(0);
    expect(dumb.raw()).toContain("bestblockhash");
    expect(dumb.raw()).not.toMatch(/\x1b\[3\dm/);
  });

  it("an argument that is not UTF-8 is refused by name, exit 2, nothing sent (not read as U+FFFD and sent)", async () => {
    const rec = await recorder();
    try {
      const r = await sh(`chaingw --url ${rec.url} rpc getaddressesbylabel $'ab\\xffc'`);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toBe('chaingw: argument 5 is not valid UTF-8 (read as "ab\uFFFDc"); nothing sent\n');
      expect(rec.last()).toBeUndefined();
      const j = await sh(`chaingw --json getblockhash $'\\xc3'`);
      expect(j.exitCode).toBe(2);
      expect(JSON.parse(j.stderr).error.code).toBe("usage");
    } finally {
      rec.close();
    }
  });

  it("a batch line's id is echoed as given: objects, arrays, booleans, null, number tokens; absent: the line number", async () => {
    const ids = ['{"job":7,"n":[1,2]}', "[1]", "true", "null", "1.50", '"x"'];
    const input = [...ids.map((id) => `{"method":"getblockcount","id":${id}}`), '{"method":"getblockcount"}'];
    const r = await sh(`printf '%s\\n' ${input.map((l) => `'${l}'`).join(" ")} | chaingw batch`);
    expect(r.exitCode, r.stderr).toBe(0);
    const echoed = r.stdout
      .trim()
      .split("\n")
      .map((l) => l.slice('{"id":'.length, l.indexOf(',"result"')));
    expect(echoed).toEqual([...ids, "7"]);
  });
});

describe("item 5: --json compact everywhere (--pretty to read); --format jsonl is JSON Lines", () => {
  it("info, reserves scan and a call: one line with --json, indented with --pretty", async () => {
    const addr = await node.newAddress();
    for (const cmd of ["info", `reserves scan ${addr}`, "getblockheader $(chaingw getblockhash 1)"]) {
      const c = await sh(`chaingw --json ${cmd}`);
      expect(c.exitCode, c.stderr).toBe(0);
      expect(c.stdout.split("\n"), cmd).toHaveLength(2);
      const p = await sh(`chaingw --json --pretty ${cmd}`);
      expect(p.stdout.split("\n").length, cmd).toBeGreaterThan(5);
      expect(p.stdout).toMatch(/^ {2}"/m);
      // the same document (a scan's time and duration aside)
      const same = (t: string) => {
        const { started_at, duration_ms, ...rest } = JSON.parse(t);
        return rest;
      };
      expect(same(p.stdout)).toEqual(same(c.stdout));
    }
  });

  it("a command's one value is printed where the format is chosen: liabilities build, verify-message, config show — one line with --json, indented with --pretty, the same document", async () => {
    const legacy = await node.rpc<string>("getnewaddress", ["", "legacy"]);
    const sig = await node.rpc<string>("signmessage", [legacy, "hello"]);
    const inputs = `printf 'customer_id,asset,amount\\nalice,BTC,1.5\\nbob,BTC,2\\n' > bal.csv && printf 'asset,decimals\\nBTC,8\\n' > assets.csv`;
    expect((await sh(inputs)).exitCode).toBe(0);
    const cmds: [string, (out: string) => string][] = [
      [`liabilities build --input bal.csv --assets assets.csv --out OUT`, (o) => `build-${o}`],
      [`verify-message ${legacy} '${sig}' hello`, () => ""],
      ["config show", () => ""],
    ];
    for (const [cmd, out] of cmds) {
      const c = await sh(`chaingw --json ${cmd.replace("OUT", out("compact"))}`);
      expect(c.exitCode, c.stderr).toBe(0);
      expect(c.stdout.split("\n"), cmd).toHaveLength(2);
      const p = await sh(`chaingw --json --pretty ${cmd.replace("OUT", out("pretty"))}`);
      expect(p.stdout.split("\n").length, cmd).toBeGreaterThan(3);
      expect(p.stdout).toMatch(/^ {2}["{]/m);
      // the same document: its values, or a build's shape (each build draws its own salts and splits)
      const build = cmd.startsWith("liabilities");
      const same = (t: string) =>
        JSON.stringify(JSON.parse(t), (_k, v) =>
          build && (v === null || typeof v !== "object") ? typeof v : v,
        );
      expect(same(p.stdout), cmd).toBe(same(c.stdout));
    }
  });

  it("jsonl: a list one element a line (getchaintips, reserves scan's outputs); an empty list no line; other values one line", async () => {
    const tips = await sh("chaingw --format jsonl getchaintips");
    expect(
      tips.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual(JSON.parse((await sh("chaingw --json getchaintips")).stdout));
    expect((await sh("chaingw --format jsonl getrawmempool")).stdout).toBe("");
    expect((await sh("chaingw --format jsonl getblockcount")).stdout).toMatch(/^\d+\n$/);
    // reserves scan: one line per unspent output, the CSV's rows as JSON
    const miner = (await node.rpc<{ address: string }[]>("listunspent", [1, 9999999]))[0].address;
    const s = await sh(`chaingw --format jsonl reserves scan ${miner}`);
    expect(s.exitCode, s.stderr).toBe(0);
    const rows = s.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const csv = (await sh(`chaingw --format csv reserves scan ${miner}`)).stdout.trim().split("\n");
    expect(rows.length).toBe(csv.length - 1);
    expect(rows[0]).toMatchObject({
      vout: expect.any(Number),
      amount: expect.any(String),
      sats: expect.any(String),
    });
  });
});

describe("item 5: reserves balances takes --format jsonl too (anvil)", () => {
  let anvil: AnvilNode;
  beforeAll(async () => {
    anvil = await startAnvil();
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it("one line per balance read, the CSV's rows; --json one line", async () => {
    const [a, b] = (await anvil.rpc<string[]>("eth_accounts")).slice(0, 2);
    const url = `--chain evm --url ${anvil.url}`;
    const j = await sh(`chaingw ${url} --format jsonl reserves balances ${a} ${b}`);
    expect(j.exitCode, j.stderr).toBe(0);
    const rows = j.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r.address.toLowerCase())).toEqual([a, b].map((x) => x.toLowerCase()));
    expect(rows[0]).toMatchObject({
      base_units: "10000000000000000000000",
      amount: "10000.000000000000000000",
    });
    const c = await sh(`chaingw ${url} --json reserves balances ${a}`);
    expect(c.stdout.split("\n")).toHaveLength(2);
  });
});
