/**
 * `chaingw reserves report PROOF…`: a UTXO proof (real litecoind -regtest, with a signature) and an EVM
 * proof (real anvil, a token) as one summary; `--verify` against both chains; `--html` opened in Debian's
 * chromium headless: the totals shown equal the proofs', the page makes no network request (every request
 * of the browser goes through a counting proxy), and a screenshot is kept as a test artefact.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { CHART_TEXT, type ChartText, layoutIn, screenshot } from "./helpers/chromium.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { HANG_GUARD_MS, trackDir } from "./helpers/procs.js";
import { deployToken, mint } from "./helpers/tokens.js";

let ltc: LitecoinNode;
let anvil: AnvilNode;
let dir: string;
let utxoProof: string;
let evmProof: string;
let ltcUrl: string;
const CHALLENGE = "audit 2026-11-23";
const holders = Array.from({ length: 14 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}`);
const amounts = holders.map((_, i) => (i === 0 ? 2n ** 130n + 3n : BigInt(i) * 1_000_003n));

/** The screenshot of the report page, kept after the run (its path is printed). */
const ARTEFACT_DIR = join(tmpdir(), "chaingw-test-artefacts");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-report-"));
  trackDir(dir);
  [ltc, anvil] = await Promise.all([startLitecoind({ blocks: 110 }), startAnvil()]);
  ltcUrl = ltc.url.replace("://", `://${ltc.user}:${ltc.password}@`);
  // UTXO: two addresses with odd amounts, one of them signs the challenge
  const a = await ltc.rpc<string>("getnewaddress", ["", "legacy"]);
  const b = await ltc.rpc<string>("getnewaddress", ["", "bech32"]);
  await ltc.rpc("sendtoaddress", [a, 1.23456789]);
  await ltc.rpc("sendtoaddress", [b, 0.5]);
  await ltc.rpc("generatetoaddress", [1, await ltc.rpc<string>("getnewaddress", ["", "bech32"])]);
  const sig = await ltc.rpc<string>("signmessage", [a, CHALLENGE]);
  writeFileSync(join(dir, "sigs.csv"), `${a},${sig}\n`);
  utxoProof = join(dir, "ltc.json");
  const u = await runCli(
    [
      "reserves",
      "scan",
      a,
      b,
      "--proof",
      utxoProof,
      "--challenge",
      CHALLENGE,
      "--signatures",
      join(dir, "sigs.csv"),
    ],
    { env: { CHAINGW_URL: ltcUrl } },
  );
  expect(u.exitCode, u.stderr).toBe(0);
  // EVM: a token over 14 addresses, and their ETH
  const token = await deployToken(anvil.rpc, "Token", { symbol: "USDX", decimals: 6 });
  await mint(anvil.rpc, token, holders, amounts);
  evmProof = join(dir, "evm.json");
  const e = await runCli(
    ["reserves", "balances", ...holders, "--native", "--token", token, "--proof", evmProof],
    {
      env: { CHAINGW_URL: anvil.url },
    },
  );
  expect(e.exitCode, e.stderr).toBe(0);
});

afterAll(async () => {
  await Promise.all([ltc?.stop(), anvil?.stop()]);
});

const report = (args: string[]) =>
  runCli(["reserves", "report", ...args], { env: { CHAINGW_URL: "http://127.0.0.1:9/" } });

describe("reserves report", () => {
  it("prints UTXO and EVM proofs as one summary: chain, asset, block, total, holders, proven share", async () => {
    const r = await report([utxoProof, evmProof]);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe(
      "NOT VERIFIED: 2 proofs, digests match; not verified against the chains (--verify does that): nothing in them is proven, every figure is claimed",
    );
    expect(r.stdout).toMatch(/LTC regtest .* LTC .* 1\.73456789 .* 2 of 2 .* 71\.17%/);
    expect(r.stdout).toMatch(/anvil \(chain id 31337, evm\) .* USDX/);
    // one way to write an amount: coin units with all of USDX's 6 decimals, no separators
    expect(r.stdout).toContain(fixed6(amounts.reduce((s, x) => s + x, 0n)));
    expect(r.stdout).toContain(`re-verify: chaingw reserves report --verify ${utxoProof} ${evmProof}`);
    const j = await runCli(["--json", "reserves", "report", utxoProof, evmProof]);
    const doc = JSON.parse(j.stdout);
    expect(doc.proofs[1].assets[1].total_base_units).toBe(amounts.reduce((s, x) => s + x, 0n).toString());
  });

  it("--verify checks each proof against its own chain; one that does not hold fails the report", async () => {
    const args = ["--verify", "--url-for", `utxo=${ltcUrl}`, "--url-for", `evm=${anvil.url}`];
    const r = await report([...args, utxoProof, evmProof]);
    expect(r.exitCode).toBe(0);
    // judged at each proof's own height, with its distance from the tip and its age: never "now"
    expect(r.stdout.split("\n")[0]).toMatch(
      /^HOLDS: all 2 proofs hold, each re-read at its own height, not now \(.*ltc\.json at height \d+, \d+ blocks? below the node's tip \d+, made \S+ \(\d+ min ago\); .* at block \d+, \d+ blocks? below the node's tip \d+, made .*\); proven owned \(signed for, re-read\): 1\.23456789 of 1\.73456789 LTC; .*; the rest is claimed only$/,
    );
    // the command to run again names the same nodes (before: --url-for dropped), credentials left out
    expect(r.stdout).toContain(
      `re-verify: chaingw reserves report --verify --url-for utxo=${ltc.url} --url-for evm=${anvil.url} ${utxoProof} ${evmProof}`,
    );
    expect(r.stdout).not.toContain(ltc.password);
    // a forged balance, re-digested so only the chain can tell
    const d = JSON.parse(readFileSync(evmProof, "utf8"));
    const usd = d.assets[1];
    usd.balances[2].base_units = (BigInt(usd.balances[2].base_units) + 1n).toString();
    usd.balances[2].amount = fmt6(BigInt(usd.balances[2].base_units));
    usd.total.base_units = (BigInt(usd.total.base_units) + 1n).toString();
    usd.total.amount = fmt6(BigInt(usd.total.base_units));
    d.digest = digestOf(d);
    const forged = join(dir, "forged.json");
    writeFileSync(forged, JSON.stringify(d));
    const f = await report([...args, utxoProof, forged]);
    expect(f.exitCode, f.stderr).toBe(1);
    expect(f.stdout.split("\n")[0]).toBe("FAILS: 1 of 2 proofs do not hold");
    expect(f.stdout).toContain("the proof does not hold: 1 failing item");
    // --format csv: per proof and asset, the verdict and its stable code (docs/finding-codes.md): what decides it
    const csv = await report([...args, "--format", "csv", utxoProof, forged]);
    const lines = csv.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/,proven_share,verdict,code$/);
    expect(lines.slice(1).map((l) => l.split(",").slice(-2).join(","))).toEqual([
      "holds,holds",
      "fails,balances-fails",
      "fails,balances-fails",
    ]);
    expect(csv.exitCode).toBe(1);
  });

  it("--html: one self-contained page; chromium shows the proofs' totals, requests nothing, and leaves a screenshot", async () => {
    const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync);
    expect(
      chromium,
      "chromium is missing: run scripts/setup.sh as root (apt-get install -y chromium)",
    ).toBeTruthy();
    const page = join(dir, "report.html");
    const r = await report(["--html", page, utxoProof, evmProof]);
    expect(r.exitCode).toBe(0);
    const html = readFileSync(page, "utf8");
    // nothing to fetch in the source either: no script, no link, no external url
    expect(html).not.toMatch(/<script|<link|@import|url\(|src="http/i);
    expect(html.indexOf('id="verdict"')).toBeLessThan(html.indexOf('id="totals"'));

    // every request the browser makes goes through this proxy (loopback included)
    const seen: string[] = [];
    // the browser's own service calls, which no flag turns off in this chromium build (update checks, its
    // clock, account sign-in, its optimization guide — seen once on a loaded host, 20:55 UTC 2026-12-07): exact hosts and paths, so a page's fetch of anything else still counts
    const browserOwn =
      /^(CONNECT (update\.googleapis\.com|accounts\.google\.com|optimizationguide-pa\.googleapis\.com):443|GET http:\/\/clients2\.google\.com\/time\/1\/current\?|POST http:\/\/update\.googleapis\.com\/service\/update2\/json\?)/;
    const pageRequests = () => seen.filter((x) => !browserOwn.test(x));
    const proxy: Server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(502).end();
    });
    proxy.on("connect", (req, socket) => {
      seen.push(`CONNECT ${req.url}`);
      socket.destroy();
    });
    await new Promise<void>((ok) => proxy.listen(0, "127.0.0.1", ok));
    const port = (proxy.address() as AddressInfo).port;
    const browse = async (file: string, extra: string[]) => {
      const profile = mkdtempSync(join(tmpdir(), "chaingw-chromium-"));
      trackDir(profile);
      const res = await execa(
        chromium as string,
        [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
          `--user-data-dir=${profile}`,
          `--proxy-server=http://127.0.0.1:${port}`,
          "--proxy-bypass-list=<-loopback>",
          ...extra,
          `file://${file}`,
        ],
        { timeout: HANG_GUARD_MS, reject: false },
      );
      return res.stdout;
    };
    try {
      // the detector works: a page with one external image makes the proxy count a request
      const control = join(dir, "control.html");
      writeFileSync(control, '<!doctype html><img src="http://example.invalid/x.png"><p>control</p>');
      await browse(control, ["--dump-dom", "--virtual-time-budget=3000"]);
      expect(pageRequests()).toContain("GET http://example.invalid/x.png");
      seen.length = 0;

      const dom = await browse(page, ["--dump-dom", "--virtual-time-budget=3000"]);
      expect(dom).toContain('data-verdict="not-verified"');
      const shown = [
        ...dom.matchAll(/class="num total" data-symbol="([^"]+)" data-base-units="(\d+)">([^<]+)</g),
      ].map((m) => [m[1], m[2], m[3]]);
      const ltcDoc = JSON.parse(readFileSync(utxoProof, "utf8"));
      const evmDoc = JSON.parse(readFileSync(evmProof, "utf8"));
      expect(shown).toEqual([
        ["LTC", ltcDoc.total.amount_sats, ltcDoc.total.amount],
        ["ETH", evmDoc.assets[0].total.base_units, fixed(BigInt(evmDoc.assets[0].total.base_units), 18)],
        ["USDX", evmDoc.assets[1].total.base_units, fixed6(BigInt(evmDoc.assets[1].total.base_units))],
      ]);
      expect(dom).toContain(ltcDoc.digest);
      expect(dom).toContain(evmDoc.digest);
      expect((dom.match(/<svg /g) ?? []).length).toBe(2);
      expect(dom).toContain("no address holds any ETH");

      execFileSync("mkdir", ["-p", ARTEFACT_DIR]);
      const shot = join(ARTEFACT_DIR, "reserves-report.png");
      await browse(page, [`--screenshot=${shot}`, "--window-size=1280,1800", "--hide-scrollbars"]);
      expect(statSync(shot).size).toBeGreaterThan(10_000);
      expect(pageRequests()).toEqual([]);
      console.log(`reserves report screenshot: ${shot}`);
    } finally {
      proxy.closeAllConnections();
      await new Promise((ok) => proxy.close(ok));
    }
  });
});

/**
 * Element boxes of a report page as chromium lays it out at `width` px: a copy of the page with a measuring
 * script (the page itself has none, and its CSP would refuse one), read back through --dump-dom.
 */
async function layoutAt(page: string, width: number): Promise<Layout> {
  const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync) as string;
  const measure = `<script>
const box = (e) => { const r = e.getBoundingClientRect(); return { l: r.left, r: r.right, t: r.top, b: r.bottom }; };
const out = {
  viewport: document.documentElement.clientWidth,
  scrollWidth: document.documentElement.scrollWidth,
  cells: [...document.querySelectorAll("#totals tr")].map((tr) => [...tr.children].map(box)),
  charts: [...document.querySelectorAll("svg")].map((s) => ({
    svg: box(s),
    rows: [...s.querySelectorAll("g.row")].map((g) => ({ lbl: box(g.querySelector(".lbl")), bar: box(g.querySelector("rect")), val: box(g.querySelector(".val")) })),
  })),
};
const pre = document.createElement("pre"); pre.id = "layout"; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
</script>`;
  const copy = page.replace(/\.html$/, `.measured-${width}.html`);
  writeFileSync(
    copy,
    readFileSync(page, "utf8")
      .replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, "")
      .replace("</body>", `${measure}</body>`),
  );
  const profile = mkdtempSync(join(tmpdir(), "chaingw-chromium-"));
  trackDir(profile);
  const args = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    `--user-data-dir=${profile}`,
  ];
  const r = await execa(
    chromium,
    [...args, `--window-size=${width},2000`, "--dump-dom", "--virtual-time-budget=2000", `file://${copy}`],
    { timeout: HANG_GUARD_MS, reject: false },
  );
  const m = /<pre id="layout">([^<]*)<\/pre>/.exec(String(r.stdout));
  expect(m, String(r.stderr).slice(-400)).toBeTruthy();
  // and a picture of the page itself at that width, to look at
  execFileSync("mkdir", ["-p", ARTEFACT_DIR]);
  const shot = join(ARTEFACT_DIR, `reserves-report-${width}px.png`);
  await execa(chromium, [...args, `--window-size=${width},1400`, `--screenshot=${shot}`, `file://${page}`], {
    timeout: HANG_GUARD_MS,
    reject: false,
  });
  console.log(`reserves report at ${width} px: ${shot}`);
  return JSON.parse((m?.[1] ?? "").replace(/&quot;/g, '"').replace(/&amp;/g, "&"));
}
type Box = { l: number; r: number; t: number; b: number };
interface Layout {
  viewport: number;
  scrollWidth: number;
  cells: Box[][];
  charts: { svg: Box; rows: { lbl: Box; bar: Box; val: Box }[] }[];
}

describe("reserves report --html layout", () => {
  it("long addresses never run into the bars or the shares; at 900 and 1400 px every column is in view", async () => {
    // a P2WSH address (64 characters) beside a short one: the longest labels a UTXO proof has
    const pub = (await ltc.rpc<{ pubkey: string }>("getaddressinfo", [await ltc.newAddress()])).pubkey;
    const wsh = (await ltc.rpc<{ address: string }>("addmultisigaddress", [1, [pub], "", "bech32"])).address;
    const short = await ltc.rpc<string>("getnewaddress", ["", "legacy"]);
    await ltc.rpc("sendtoaddress", [wsh, 2.5]);
    await ltc.rpc("sendtoaddress", [short, 0.125]);
    await ltc.mine(1);
    const longProof = join(dir, "long.json");
    const s = await runCli(["reserves", "scan", wsh, short, "--proof", longProof], {
      env: { CHAINGW_URL: ltcUrl },
    });
    expect(s.exitCode, s.stderr).toBe(0);
    const page = join(dir, "layout.html");
    const r = await report(["--html", page, longProof, evmProof]);
    expect(r.exitCode, r.stderr).toBe(0);
    for (const width of [900, 1400]) {
      const l = await layoutAt(page, width);
      const at = `at ${width} px`;
      // no horizontal scrollbar: nothing wider than the window
      expect(l.scrollWidth, at).toBeLessThanOrEqual(l.viewport);
      // every column of the totals, "proven owned" and "verdict" included, inside the window
      for (const row of l.cells) for (const c of row) expect(c.r, at).toBeLessThanOrEqual(l.viewport);
      expect(l.charts.length).toBe(2);
      for (const c of l.charts) {
        expect(c.svg.r, at).toBeLessThanOrEqual(l.viewport);
        // each address on a line with its share after it, its bar under both
        for (const row of c.rows) {
          expect(row.lbl.b, `${at}: label above its bar`).toBeLessThanOrEqual(row.bar.t + 0.5);
          expect(row.lbl.r, `${at}: label against share`).toBeLessThanOrEqual(row.val.l);
          expect(row.val.b, `${at}: share above the bar`).toBeLessThanOrEqual(row.bar.t + 0.5);
          expect(row.val.r, `${at}: share inside the chart`).toBeLessThanOrEqual(c.svg.r + 0.5);
          expect(row.bar.r, `${at}: bar inside the chart`).toBeLessThanOrEqual(c.svg.r + 0.5);
        }
      }
      // the P2WSH address's row is there, in full or shortened in the middle
      const html = readFileSync(page, "utf8");
      expect(html).toContain(wsh);
    }
    // at a phone's 390 px and a desktop's 1280 px (issue 59): nothing off the side, every text of the charts
    // (addresses and shares) 11 px or more as drawn and inside its chart — the 700 px chart was scaled to 6 px
    // text at 390 — and each chart and each of its bars named by its asset
    for (const width of [390, 1280]) {
      const l = await layoutIn(
        page,
        width,
        `({ charts: [...d.querySelectorAll("svg")].map((s) => [s.dataset.asset ?? null, ...[...s.querySelectorAll("g.row")].map((g) => g.dataset.asset ?? null)]), chart: ${CHART_TEXT} })`,
      );
      const at = `at ${width} px`;
      expect(l.scroll, at).toBeLessThanOrEqual(l.viewport);
      const more = l.more as { charts: (string | null)[][]; chart: ChartText[] };
      expect(
        more.charts.map((c) => c[0]),
        at,
      ).toEqual(["LTC", "USDX"]);
      for (const c of more.charts) expect(new Set(c), at).toEqual(new Set([c[0]]));
      // the P2WSH and the short address; the 10 largest USDX holdings and the other 4
      expect(
        more.charts.map((c) => c.length - 1),
        at,
      ).toEqual([2, 11]);
      expect(more.chart.length, at).toBe(2 * 13);
      expect(
        more.chart.filter((t) => t.px < 11 || !t.inside),
        at,
      ).toEqual([]);
      await screenshot(page, width, "reserves-report-narrow");
    }
  });
});

const fmt6 = (b: bigint) => {
  const f = (b % 10n ** 6n).toString().padStart(6, "0").replace(/0+$/, "");
  return `${b / 10n ** 6n}${f ? `.${f}` : ""}`;
};
/** Base units in coin units with every one of the asset's decimals: the one way chaingw writes an amount. */
const fixed = (b: bigint, d: number) => {
  const s = b.toString().padStart(d + 1, "0");
  return `${s.slice(0, -d)}.${s.slice(-d)}`;
};
const fixed6 = (b: bigint) => fixed(b, 6);

describe("--node NET=URL: one way to name the nodes, for every command that re-reads proofs (issue 55, item 5)", () => {
  const LTC_LINE = () => `LTC (Litecoin regtest): ${ltc.url}`;

  it("reserves report --verify --node LTC=… --node evm=…: the same verdict as --url-for, each node named for its chain (text, --json, --html), credentials cut", async () => {
    const page = join(dir, "nodes.html");
    const r = await report([
      "--verify",
      "--node",
      `LTC=${ltcUrl}`,
      "--node",
      `evm=${anvil.url}`,
      "--html",
      page,
      utxoProof,
      evmProof,
    ]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toMatch(/^HOLDS: all 2 proofs hold/);
    expect(r.stdout).toContain(`nodes: ${LTC_LINE()}; evm (anvil (chain id 31337)): ${anvil.url}`);
    // the page says it in the same words, under the verdict
    const html = readFileSync(page, "utf8");
    expect(html).toContain(
      `<p class="muted" id="nodes">nodes: ${LTC_LINE()}; evm (anvil (chain id 31337)): ${anvil.url}</p>`,
    );
    expect(html.indexOf('id="verdict"')).toBeLessThan(html.indexOf('id="nodes"'));
    expect(html).not.toContain(ltc.password);
    expect(r.stdout).toContain(
      `re-verify: chaingw reserves report --verify --node LTC=${ltc.url} --node evm=${anvil.url} ${utxoProof} ${evmProof}`,
    );
    expect(r.stdout).not.toContain(ltc.password);
    const j = JSON.parse(
      (
        await report([
          "--json",
          "--verify",
          "--node",
          `LTC=${ltcUrl}`,
          "--url-for",
          `evm=${anvil.url}`,
          utxoProof,
          evmProof,
        ])
      ).stdout,
    );
    expect(j.nodes).toEqual([
      { net: "LTC", chain: "Litecoin regtest", url: ltc.url },
      { net: "evm", chain: "anvil (chain id 31337)", url: anvil.url },
    ]);
  });

  it("reserves verify of chaingw's own proof takes --node (its coin or its group), in the same words; the global --url points nowhere", async () => {
    const u = await runCli(["reserves", "verify", utxoProof, "--node", `ltc=${ltcUrl}`], {
      env: { CHAINGW_URL: "http://127.0.0.1:9/" },
    });
    expect(u.exitCode, u.stdout + u.stderr).toBe(0);
    expect(u.stdout).toContain(`nodes: ${LTC_LINE()}`);
    expect(u.stdout).not.toContain(ltc.password);
    const e = await runCli(["reserves", "verify", evmProof, "--node", `evm=${anvil.url}`, "--json"], {
      env: { CHAINGW_URL: "http://127.0.0.1:9/" },
    });
    expect(e.exitCode, e.stderr).toBe(0);
    expect(JSON.parse(e.stdout).nodes).toEqual([
      { net: "evm", chain: "anvil (chain id 31337)", url: anvil.url },
    ]);
  });

  it("solvency over chaingw's own proofs takes --node too: SOLVENT, the node named as in reserves verify (text, --html, the package's solvency.json and page)", async () => {
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nLTC,8\n");
    const { buildCommitment } = await import("./helpers/liabilities.js");
    const c = await buildCommitment(dir, "node-ltc", ["c1,LTC,1"]);
    const page = join(dir, "solvency-nodes.html");
    const pkg = join(dir, "solvency-nodes-pkg");
    const r = await runCli([
      "solvency",
      "--liabilities",
      c,
      "--reserves",
      `LTC=${utxoProof}`,
      "--backing",
      "LTC=litecoin-regtest",
      "--challenge",
      CHALLENGE,
      "--verify",
      "--node",
      `LTC=${ltcUrl}`,
      "--html",
      page,
      "--report",
      pkg,
    ]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^SOLVENT/);
    expect(r.stdout).toContain(`nodes: ${LTC_LINE()}`);
    expect(r.stdout).not.toContain(ltc.password);
    const html = readFileSync(page, "utf8");
    expect(html).toContain(`<p class="muted" id="nodes">nodes: ${LTC_LINE()}</p>`);
    expect(html).not.toContain(ltc.password);
    // the package: solvency.json's report names it as --json does, its page's scope in the same words
    const json = readFileSync(join(pkg, "solvency.json"), "utf8");
    expect(JSON.parse(json).report.nodes).toEqual([{ net: "LTC", chain: "Litecoin regtest", url: ltc.url }]);
    expect(json).not.toContain(ltc.password);
    expect(readFileSync(join(pkg, "index.html"), "utf8")).toContain(
      `<tr data-field="nodes"><th>nodes</th><td>${LTC_LINE()}</td></tr>`,
    );
  });

  it("an unknown NET, a NET given twice (either spelling), a coin no proof is of: exit 2 by name, nothing sent", async () => {
    const refused = async (args: string[], words: string) => {
      const r = await runCli(args);
      expect(r.exitCode, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toContain(words);
      expect(r.stderr).not.toContain(ltc.password);
    };
    for (const cmd of [
      ["reserves", "report", "--verify", utxoProof],
      ["reserves", "verify", utxoProof],
      [
        "solvency",
        "--liabilities",
        join(dir, "node-ltc", "commitment.json"),
        "--reserves",
        `LTC=${utxoProof}`,
        "--verify",
      ],
    ]) {
      await refused([...cmd, "--node", `LTCX=${ltcUrl}`], '--node "LTCX"=…: no network "LTCX"');
      await refused(
        [...cmd, "--node", `LTC=${ltcUrl}`, "--node", "ltc=http://127.0.0.1:1/"],
        '--node names "LTC" twice',
      );
    }
    await refused(
      [
        "reserves",
        "report",
        "--verify",
        utxoProof,
        "--url-for",
        `utxo=${ltcUrl}`,
        "--node",
        "utxo=http://127.0.0.1:1/",
      ],
      '--node names "utxo" twice',
    );
    await refused(
      ["reserves", "report", "--verify", utxoProof, "--node", `BTC=${ltcUrl}`],
      "--node BTC=…: no proof read is of BTC's chain",
    );
    await refused(
      [
        "reserves",
        "verify",
        fileURLToPath(new URL("./fixtures/exchange/ownership/okx_por_example_2022-11.csv", import.meta.url)),
        "--node",
        "NOPE=http://127.0.0.1:1/",
      ],
      '--node "NOPE"=…: no network "NOPE"',
    );
  });
});
