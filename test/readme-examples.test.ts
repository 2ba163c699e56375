/**
 * Every example of the README, run. The commands of its `sh` blocks (and `$ ` lines of other blocks) run
 * in bash with `chaingw` on the PATH, against a regtest litecoind found as bitcoin-cli would find it
 * (~/.litecoin, CHAINGW_NETWORK=regtest), anvil (ETH_RPC_URL), the EVM-compat fixture (TRON's JSON-RPC)
 * and `chaingw serve` as the gateway, in a directory holding the files they name. The README's placeholders (0xTOKEN, <hash>, ltc1q...) become real values of these nodes. Each
 * command must exit as its comment says (`exit N`, else 0) without a crash. What cannot run is marked in
 * the README: `<!-- examples: not run: why -->` before a block, `<!-- example not run: START — why -->`
 * for the lines starting with START.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTronFixture, type TronFixture } from "./fixtures/tron.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { BY_COUNT, HANG_GUARD_MS, trackDir, until } from "./helpers/procs.js";
import { type Served, startServe } from "./helpers/serve.js";
import { ALICE, BOB, deployToken, SEL, send, TOKEN_ABI_PATH, word } from "./helpers/token.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const TPUB =
  "tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp";
const CHALLENGE = "audit 2026-11-23";
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

interface Example {
  /** README line of the command's first line */
  line: number;
  /** README line of its block's fence: the commands of one block share a config directory */
  block: number;
  /** the command as written (continuation lines joined), without its comment */
  command: string;
  comment: string;
  /** why it is not run, when the README says so */
  notRun?: string;
}

/** The command part of a shell line and its trailing comment (a # outside quotes, after a space). */
function splitComment(text: string): [string, string] {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(text[i - 1] as string)))
      return [text.slice(0, i).trim(), text.slice(i + 1).trim()];
  }
  return [text.trim(), ""];
}

/** The README's examples, with what its markers say of each. */
function examplesOf(readme: string): { examples: Example[]; unmarked: string[] } {
  const lines = readme.split("\n");
  const examples: Example[] = [];
  const unmarked: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)\s*$/.exec(lines[i] as string);
    if (!fence) continue;
    // the markers: the comment lines right above the fence
    let blockWhy: string | undefined;
    const lineWhy: [string, string][] = [];
    for (let k = i - 1; k >= 0 && /^<!--.*-->$/.test(lines[k] as string); k--) {
      const c = lines[k] as string;
      const b = /^<!-- examples: not run: (.+) -->$/.exec(c);
      const l = /^<!-- example not run: (.+?) — (.+) -->$/.exec(c);
      if (b) blockWhy = b[1];
      else if (l) lineWhy.push([l[1] as string, l[2] as string]);
    }
    const shell = fence[1] === "sh";
    let j = i + 1;
    for (; j < lines.length && !/^```\s*$/.test(lines[j] as string); j++) {
      let text = lines[j] as string;
      const start = j + 1;
      if (!shell) {
        if (!text.startsWith("$ ")) continue;
        text = text.slice(2);
      }
      while (text.endsWith("\\") && j + 1 < lines.length)
        text = `${text.slice(0, -1)} ${(lines[++j] as string).trim()}`;
      const [command, comment] = splitComment(text);
      if (!command) continue;
      const why = blockWhy ?? lineWhy.find(([p]) => command.startsWith(p))?.[1];
      examples.push({ line: start, block: i + 1, command, comment, ...(why ? { notRun: why } : {}) });
    }
    if (blockWhy === undefined && !shell && examples.at(-1)?.line && (examples.at(-1)?.line ?? 0) > i)
      unmarked.push(`line ${i + 1}`);
    i = j;
  }
  return { examples, unmarked };
}

/**
 * The commands of a Markdown text: every line of its `sh` blocks, the `$ ` lines of other blocks and, in any
 * block, the lines that start with `chaingw ` (continuation lines joined).
 */
function commandsOf(markdown: string): { line: number; command: string }[] {
  const lines = markdown.split("\n");
  const out: { line: number; command: string }[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    const f = /^```(\w*)\s*$/.exec(l);
    if (f) {
      fence = fence === undefined ? (f[1] as string) : undefined;
      continue;
    }
    if (fence === undefined) continue;
    let text = fence === "sh" || l.startsWith("chaingw ") ? l : l.startsWith("$ ") ? l.slice(2) : undefined;
    if (text === undefined) continue;
    const start = i + 1;
    while (text.endsWith("\\") && i + 1 < lines.length)
      text = `${text.slice(0, -1)} ${(lines[++i] as string).trim()}`;
    out.push({ line: start, command: splitComment(text)[0] });
  }
  return out.filter((c) => c.command);
}

/** The paths a command names outside the repository: under ~ or $HOME, absolute (not /dev/null), or ../. */
function outsidePaths(command: string): string[] {
  const words = command.replace(/\w+:\/\/\S*/g, "URL").match(/[^\s=:'"()<>|;]+/g) ?? [];
  return words.filter(
    (w) => /^(~|\$HOME\b|\$\{HOME\}|\.\.\/)/.test(w) || (/^\/[\w.-]/.test(w) && w !== "/dev/null"),
  );
}

/** The repository's own paths a command names (test/…, docs/…, scripts/…, bench/…, src/…), without a #fragment. */
function repoPaths(command: string): string[] {
  const words = command.replace(/\w+:\/\/\S*/g, "URL").match(/[^\s=:'"()<>|;]+/g) ?? [];
  return words
    .filter((w) => /^(test|docs|scripts|bench|src)\/[\w./-]+/.test(w) && !/[*$]/.test(w))
    .map((w) => w.replace(/#.*$/, ""));
}

/** What the example's comment says its exit code is ("exit 2, nothing sent"), else 0. */
const expectedExit = (comment: string): number => Number(/\bexit (\d)\b(?! at)/.exec(comment)?.[1] ?? 0);

let ltc: LitecoinNode;
/** a second node of the same chain, synced from the first: the README's --cross-check */
let ltc2: LitecoinNode;
let anvil: AnvilNode;
/** `chaingw serve` in front of the litecoind: the README's gateway (https://gw.example) */
let gateway: Served;
/** the EVM-compat chain (TRON's JSON-RPC, modelled on java-tron): the README's TRON examples */
let tron: TronFixture;
let work: string;
let home: string;
let bin: string;
const values: [string, string, string?][] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "chaingw-readme-"));
  trackDir(work);
  [ltc, ltc2, anvil] = await Promise.all([
    startLitecoind({ cookie: true, blocks: 110, listen: true }),
    startLitecoind(),
    startAnvil(),
  ]);
  await ltc2.rpc("addnode", [`127.0.0.1:${ltc.p2pPort}`, "onetry"]);
  // the node where bitcoin-cli would look (~/.litecoin)
  home = join(work, "home");
  mkdirSync(join(home, ".config"), { recursive: true });
  symlinkSync(ltc.datadir, join(home, ".litecoin"));
  bin = join(work, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "chaingw"), `#!/bin/sh\nexec "${process.execPath}" "${ROOT}bin/chaingw" "$@"\n`, {
    mode: 0o755,
  });
  const cwd = join(work, "cwd");
  mkdirSync(cwd);
  // where the tour's --datadir points: inside the repository (.tmp/, which git ignores)
  mkdirSync(join(cwd, ".tmp"));
  symlinkSync(ltc.datadir, join(cwd, ".tmp", "regtest"));
  const file = (name: string, text: string) => writeFileSync(join(cwd, name), text);

  // UTXO: legacy addresses that sign the challenge, a segwit one, 6 confirmations for --min-conf 6
  const legacy = [];
  for (let i = 0; i < 3; i++) legacy.push(await ltc.rpc<string>("getnewaddress", ["", "legacy"]));
  const segwit = await ltc.newAddress();
  const p2sh = await ltc.rpc<string>("getnewaddress", ["", "p2sh-segwit"]);
  const funded = [...legacy, segwit, p2sh];
  const pay: Record<string, number> = {};
  funded.forEach((a, i) => {
    pay[a] = Number((0.1 * (i + 1)).toFixed(8));
  });
  await ltc.rpc("sendmany", ["", pay]);
  // heights up to 5000 for the --range examples
  for (let i = 0; i < 5; i++) await ltc.mine(1000);
  const sigs = [];
  for (const a of legacy) sigs.push(`${a},${await ltc.rpc<string>("signmessage", [a, CHALLENGE])}`);
  const list = `${funded.join("\n")}\n`;
  for (const f of ["addresses.txt", "big-list.txt", "exchange-addresses.txt", "list.txt"]) file(f, list);
  file("signatures.csv", `${sigs.join("\n")}\n`);
  const hash1 = await ltc.rpc<string>("getblockhash", [1]);
  file(
    "requests.jsonl",
    `{"method":"getblockcount","params":[]}\n{"method":"getblockheader","params":["${hash1}"]}\n`,
  );
  const ltcProof = await runCli(
    ["reserves", "scan", "-f", join(cwd, "addresses.txt"), "--proof", join(cwd, "ltc.json")],
    {
      env: { CHAINGW_URL: ltc.authUrl },
    },
  );
  expect(ltcProof.exitCode, ltcProof.stderr).toBe(0);
  // the proof's outputs stay unspent: the mempool transactions below must not take them
  const unspent = await ltc.rpc<{ txid: string; vout: number; address: string }[]>("listunspent");
  await ltc.rpc("lockunspent", [
    false,
    unspent.filter((u) => funded.includes(u.address)).map(({ txid, vout }) => ({ txid, vout })),
  ]);
  // the second node at the same block before the mempool fills (the cross-check compares the two)
  const tip = await ltc.rpc<string>("getbestblockhash");
  // a peer asked once ("onetry") can drop at load 10 before the sync ends, and is never asked again: ask again
  // whenever the second node has no peer (seen once: "the second node at the tip: not after 600000 ms")
  await until(
    "the second node at the tip",
    async () => {
      if ((await ltc2.rpc<number>("getconnectioncount")) === 0)
        await ltc2.rpc("addnode", [`127.0.0.1:${ltc.p2pPort}`, "onetry"]);
      return (await ltc2.rpc<string>("getbestblockhash")) === tip;
    },
    undefined,
    1000,
  );
  expect(await ltc2.rpc<string>("getbestblockhash")).toBe(tip);
  // a mempool for getrawmempool | getmempoolentry
  for (let i = 0; i < 3; i++) await ltc.rpc("sendtoaddress", [await ltc.newAddress(), 0.01]);
  const message = "chaingw README";
  const signer = legacy[0] as string;

  // EVM: a token, BOB with some of it, 2,000 blocks for the ranges
  const token = await deployToken(anvil.rpc, 10n ** 24n);
  await send(anvil.rpc, { from: ALICE, to: token, data: SEL.transfer + word(BOB) + word(5n * 10n ** 18n) });
  await anvil.rpc("anvil_mine", ["0x7d0"]);
  const evmHash = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", ["0x2", false])).hash;
  const evmHead = Number(await anvil.rpc("eth_blockNumber", []));
  copyFileSync(TOKEN_ABI_PATH, join(cwd, "Token.json"));
  file("custody.txt", `${ALICE}\n${BOB}\n`);
  // the exchanges' published address files the README's examples read, where the repository holds them
  const ownership = join("test", "fixtures", "exchange", "ownership");
  mkdirSync(join(cwd, ownership), { recursive: true });
  for (const f of ["huobi_por_2023-08.csv", "huobi_por_2026-02.csv", "okx_por_example_2022-11.csv"])
    copyFileSync(join(ROOT, ownership, f), join(cwd, ownership, f));

  tron = await startTronFixture();
  const t = tron.data;
  const tronLast = Math.min(t.latest, t.first + 100);

  // the gateway of the examples, and the config the `serve` block's commands are given
  const products = { chain: "utxo", upstreams: [ltc.authUrl] };
  gateway = await startServe(
    { products: { "btc-main": products, ltc: products } },
    { keys: [["btc-main", "ltc"]] },
  );
  file(
    "gateway.json",
    JSON.stringify({ listen: "127.0.0.1:0", keys: "keys.json", products: { ltc: products } }),
  );

  const best = await ltc.rpc<string>("getbestblockhash");
  // README placeholder → this run's value (the third field: only on lines containing it)
  values.push(
    ["http://user:pass@127.0.0.1:9332/", ltc.authUrl],
    ["--url http://a/ --url http://b/", `--url ${ltc.authUrl} --url ${ltc2.authUrl}`],
    // the TRON examples: the fixture's node, blocks, token and a transaction not confirmed yet
    ["--chain evm-compat", `--chain evm-compat --url ${tron.url}`],
    ["TR7N…Lj6t", t.contractBase58],
    ["67000000..67000100", `${t.first}..${tronLast}`],
    ["0x…", t.unconfirmedTxHash, "evm-compat"],
    ["https://gw.example", gateway.url],
    ["http://127.0.0.1:8545", gateway.url, "--gateway"],
    ["CHAINGW_API_KEY=...", `CHAINGW_API_KEY=${gateway.keys[0]}`],
    ["http://127.0.0.1:8545/", anvil.url],
    ["http://127.0.0.1:8545", anvil.url.replace(/\/$/, "")],
    ["https://archive.example/", anvil.url],
    ["5a7b43...02bd", best],
    ["<hash>", hash1],
    ["0x<block hash>", evmHash],
    ["0xTOKEN", token],
    ["0xA0b8...eB48", token],
    ["0xdAC1…1ec7", token],
    ["0xf39f…2266", ALICE],
    ["0xf39f...2266", ALICE],
    ["0x7099…79c8", BOB],
    ["0x1111...1111", `0x${"11".repeat(20)}`],
    ["0xddf252ad...b3ef", TRANSFER_TOPIC],
    ["0x000...beef", `0x${"beef".padStart(64, "0")}`],
    ["--block 21000000", `--block ${evmHead}`],
    ["ltc1q... ltc1q... M8T1B2Z97gVdvmfkQcAtYbEepune1tzGua", `${segwit} ${legacy[1]} ${p2sh}`],
    ["xpub...", TPUB],
    [
      '<address> <signature> "<message>"',
      `${signer} ${await ltc.rpc<string>("signmessage", [signer, message])} "${message}"`,
    ],
    [
      "0x…",
      `0x${"00".repeat(31)}01${"00".repeat(31)}40${"00".repeat(31)}02${"6869".padEnd(64, "0")}`,
      "decode",
    ],
    ["0x…", `0x${"ab".repeat(32)}`],
  );
  // a counted list of steps, each under HANG_GUARD_MS (a node call, a command, a wait on the second node):
  // its count bounds it, not a time — at load 20 the whole setup outlasted the 600 s hook limit
}, BY_COUNT);

afterAll(async () => {
  await gateway?.stop();
  await tron?.stop();
  await Promise.all([ltc?.stop(), ltc2?.stop(), anvil?.stop()]);
});

/** The command with this run's values in place of the README's placeholders. */
function realised(command: string): string {
  let out = command;
  for (const [from, to, only] of values) if (!only || out.includes(only)) out = out.split(from).join(to);
  return out;
}

describe("the README's examples", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const { examples, unmarked } = examplesOf(readme);

  it("name no path outside the repository: no ~, $HOME, absolute path or ../ in any command of README.md or docs/*.md", () => {
    const docs = readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`);
    const outside: string[] = [];
    for (const f of ["README.md", ...docs])
      for (const c of commandsOf(readFileSync(join(ROOT, f), "utf8")))
        for (const p of outsidePaths(c.command))
          outside.push(`${f}:${c.line}: ${p} in: ${c.command.slice(0, 120)}`);
    expect(outside).toEqual([]);
    // the check itself: each kind of path outside is found, a URL's path and a relative one are not
    expect(outsidePaths("chaingw --datadir ~/regtest getblockcount")).toEqual(["~/regtest"]);
    expect(outsidePaths('chaingw -f "$HOME/a.txt" --proof /tmp/p.json --out ../x --url http://h/p')).toEqual([
      "$HOME/a.txt",
      "/tmp/p.json",
      "../x",
    ]);
    expect(outsidePaths("chaingw --datadir .tmp/regtest -f test/fixtures/a.csv > /dev/null")).toEqual([]);
  });

  it("name only repository files that are there: every test/, docs/, scripts/, bench/ or src/ path of a command of README.md or docs/*.md exists", () => {
    const docs = readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`);
    const missing: string[] = [];
    let named = 0;
    for (const f of ["README.md", ...docs])
      for (const c of commandsOf(readFileSync(join(ROOT, f), "utf8")))
        for (const p of repoPaths(c.command)) {
          named++;
          if (!existsSync(join(ROOT, p))) missing.push(`${f}:${c.line}: ${p}`);
        }
    expect(missing).toEqual([]);
    // the worked examples on the exchanges' real files name them (docs/exchange-proofs.md's OKX package)
    expect(named).toBeGreaterThan(5);
    expect(repoPaths("chaingw solvency --reserves test/fixtures/x.csv --liabilities=docs/y.json#2")).toEqual([
      "test/fixtures/x.csv",
      "docs/y.json",
    ]);
  });

  it("are found, and what is not run says why", () => {
    expect(examples.length).toBeGreaterThan(60);
    expect(unmarked).toEqual([]);
    for (const e of examples.filter((x) => x.notRun)) expect(e.notRun?.length).toBeGreaterThan(10);
    // the one that failed ("too many parameters") is gone
    expect(readme).not.toMatch(/head -3 \| chaingw getmempoolentry --stdin/);
  });

  it(
    "every one runs against regtest litecoind, anvil, the TRON fixture and a gateway, and exits as it says",
    async () => {
      const failures: string[] = [];
      const run = examples.filter((e) => !e.notRun);
      expect(run.length).toBeGreaterThan(45);
      for (const e of run) {
        const command = realised(e.command);
        const r = await execa("bash", ["-c", command], {
          cwd: join(work, "cwd"),
          reject: false,
          timeout: HANG_GUARD_MS,
          extendEnv: false,
          env: {
            PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
            HOME: home,
            // a block's `config init` is not the next block's config
            XDG_CONFIG_HOME: join(home, `.config-${e.block}`),
            NO_COLOR: "1",
            CHAINGW_NETWORK: "regtest",
            ETH_RPC_URL: anvil.url,
            // what the gateway examples' first line exports
            CHAINGW_API_KEY: gateway.keys[0] as string,
          },
        });
        const want = expectedExit(e.comment);
        const stderr = String(r.stderr);
        if (r.exitCode !== want || /internal error|TypeError|ReferenceError|at .*\.cjs:\d+/.test(stderr))
          failures.push(
            `README line ${e.line}: ${command}\n  exit ${r.exitCode} (expected ${want}): ${stderr.trim().slice(0, 400)}`,
          );
        // a verdict the comment names (solvency's "NOT PROVEN SOLVENT") is the one printed, not another exit 1
        const verdict = /\b(NOT PROVEN SOLVENT|NOT SOLVENT|SOLVENT|CANNOT SAY)\b/.exec(e.comment)?.[1];
        if (verdict && !new RegExp(`(?<!NOT |PROVEN )${verdict}\\b`).test(String(r.stdout)))
          failures.push(
            `README line ${e.line}: ${command}\n  no "${verdict}" in: ${String(r.stdout).slice(0, 400)}`,
          );
      }
      expect(failures).toEqual([]);
      // the gateway examples went through the gateway, to both products
      await until("the gateway's access-log line for ltc", () =>
        gateway.log().some((l) => l.includes('"/v1/ltc"')),
      );
      expect(gateway.log().filter((l) => l.includes('"/v1/btc-main"')).length).toBeGreaterThanOrEqual(2);
      expect(gateway.log().some((l) => l.includes('"/v1/ltc"'))).toBe(true);
      // the README's 60-odd commands one after another, each under HANG_GUARD_MS: bounded by their count
    },
    BY_COUNT,
  );
});
