/**
 * `liabilities proof ID --html FILE`: the customer's page, opened in real headless Chromium from the file
 * alone. Its own check (Web Crypto, under its Content-Security-Policy) says the proof holds and shows the
 * root the commitment names; a link's #root= compares it with the announced one; a copy whose amount, leaf
 * amount or path was changed says it does not hold, naming why; at 390 px nothing runs off the side.
 */
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { domOf, layoutIn, screenshot } from "./helpers/chromium.js";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";

let dir: string;
let page: string;
let commitment: {
  root: string;
  digest: string;
  created: string;
  assets: { asset: string; decimals: number }[];
  totals: { asset: string; base_units: string }[];
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-customer-page-"));
  trackDir(dir);
  writeFileSync(join(dir, "assets.csv"), "asset,decimals\nBTC,8\nUSDT,6\nETH,18\n");
  const rows = [
    "customer_id,asset,amount",
    "alice,BTC,1.5",
    "alice,USDT,20.25",
    "alice,ETH,0.000000000000000001",
  ];
  for (let i = 0; i < 40; i++) rows.push(`c${i},BTC,0.${String(i + 1).padStart(8, "0")}`, `c${i},USDT,${i}`);
  writeFileSync(join(dir, "balances.csv"), `${rows.join("\n")}\n`);
  const b = await runCli([
    "liabilities",
    "build",
    "--input",
    join(dir, "balances.csv"),
    "--assets",
    join(dir, "assets.csv"),
    "--out",
    join(dir, "build"),
    "--label",
    "snapshot 2026-12-01",
  ]);
  expect(b.exitCode, b.stderr).toBe(0);
  commitment = JSON.parse(readFileSync(join(dir, "build", "commitment.json"), "utf8"));
  page = join(dir, "alice.html");
  const r = await runCli(["liabilities", "proof", "--out", join(dir, "build"), "alice", "--html", page]);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stdout).toContain(`page written to ${page}`);
  expect(r.stdout).toContain(commitment.root);
});

const dom = (file: string, width = 1280, hash = "") => domOf(file, { width, hash });
const verdictOf = (d: string) =>
  /<p id="verdict" data-verdict="([^"]+)">([^<]*)<\/p>/.exec(d)?.slice(1) ?? [];

/** A copy of the page with its embedded proof changed by `edit`. */
function changed(name: string, edit: (p: any) => void): string {
  const html = readFileSync(page, "utf8");
  const m = /(<script type="application\/json" id="proof-data">)(.*?)(<\/script>)/s.exec(html);
  expect(m).toBeTruthy();
  const data = JSON.parse(m![2] as string);
  edit(data.proof);
  const copy = join(dir, `${name}.html`);
  writeFileSync(copy, html.replace(m![0], `${m![1]}${JSON.stringify(data)}${m![3]}`));
  return copy;
}

describe("liabilities proof --html: the customer's page", () => {
  it("is one private file that fetches nothing; Chromium runs its check under its CSP: holds, the commitment's root shown", async () => {
    const html = readFileSync(page, "utf8");
    expect(statSync(page).mode & 0o777).toBe(0o600);
    expect(html).toContain(`default-src 'none'`);
    expect(html).not.toMatch(/<link|<img|<iframe|src=|@import|url\(|https?:\/\//i);
    const d = await dom(page);
    expect(verdictOf(d)).toEqual([
      "holds",
      "HOLDS: your balances are included in the liabilities whose root is below",
    ]);
    expect(d).toContain(`<code class="root" id="root">${commitment.root}</code>`);
    // the totals the root binds, as the path reached it: the commitment's
    expect(d).toContain(
      `the root binds the liabilities' totals, which your path reaches it with: ${commitment.totals
        .map((t: { asset: string; base_units: string }, a: number) => {
          const d = commitment.assets[a].decimals;
          const s = t.base_units.padStart(d + 1, "0");
          return `${s.slice(0, -d)}.${s.slice(-d)} ${t.asset}`;
        })
        .join(", ")} (compare`,
    );
    expect(d).toContain(commitment.digest);
    // the amounts the leaves add up to, in coin units with each asset's decimals
    expect(d).toContain('<td class="num amount">1.50000000</td>');
    expect(d).toContain('<td class="num amount">20.250000</td>');
    expect(d).toContain('<td class="num amount">0.000000000000000001</td>');
    // the announced root, from the link: the same, or not
    expect(await dom(page, 1280, `#root=${commitment.root}`)).toContain(
      'data-match="true">the same root: your balances are in the liabilities the exchange announced',
    );
    expect(await dom(page, 1280, `#root=${"ab".repeat(32)}`)).toContain(
      'data-match="false">NOT the same root',
    );
  });

  it("names what the announced root is for in words, with the build's label or without one (it read 'announced for created …')", async () => {
    expect(readFileSync(page, "utf8")).toContain(
      `with the root the exchange announced for <b>snapshot 2026-12-01</b>, created ${commitment.created}:`,
    );
    const out = join(dir, "build-unlabelled");
    const b = await runCli([
      ...["liabilities", "build", "--input", join(dir, "balances.csv")],
      ...["--assets", join(dir, "assets.csv"), "--out", out],
    ]);
    expect(b.exitCode, b.stderr).toBe(0);
    const bare = join(dir, "alice-unlabelled.html");
    expect((await runCli(["liabilities", "proof", "--out", out, "alice", "--html", bare])).exitCode).toBe(0);
    const created = JSON.parse(readFileSync(join(out, "commitment.json"), "utf8")).created;
    const html = readFileSync(bare, "utf8");
    expect(html).toContain(`with the root the exchange announced for the liabilities created ${created}:`);
    expect(html).not.toContain("announced for created");
  });

  it("a changed copy says it does not hold: a balance, a leaf's amount with its balance, a path's sum", async () => {
    const balance = await dom(
      changed("balance", (p) => {
        p.balances[0].amount = "2.5";
        p.balances[0].base_units = "250000000";
      }),
    );
    expect(verdictOf(balance)[0]).toBe("fails");
    expect(balance).toContain(
      "the BTC balance says 2.5, the leaves add up to 1.50000000: an amount was changed",
    );
    // the forger keeps the proof consistent with itself: the leaf and the balance both raised
    const leaf = await dom(
      changed("leaf", (p) => {
        const l = p.leaves.find((x: any) => x.amounts[0] !== "0");
        l.amounts[0] = (BigInt(l.amounts[0]) + 100000000n).toString();
        p.balances[0].base_units = (BigInt(p.balances[0].base_units) + 100000000n).toString();
        p.balances[0].amount = "2.5";
      }),
    );
    expect(verdictOf(leaf)).toEqual([
      "fails",
      "DOES NOT HOLD: these balances are not shown to be in the liabilities with this root",
    ]);
    expect(leaf).toMatch(/leaf \d+: its amounts and path lead to the root [0-9a-f]{64}, not to the root/);
    const sum = await dom(
      changed("sum", (p) => {
        p.leaves[0].path[0].sums[1] = (BigInt(p.leaves[0].path[0].sums[1]) + 1n).toString();
      }),
    );
    expect(verdictOf(sum)[0]).toBe("fails");
  });

  it("at 390 px and at desktop width nothing runs off the side; screenshots to look at", async () => {
    for (const width of [390, 1280]) {
      const l = await layoutIn(page, width, `d.getElementById("verdict").dataset.verdict`);
      expect(l.viewport).toBe(width);
      expect(l.more).toBe("holds");
      expect(l.scroll, `${width} px`).toBeLessThanOrEqual(l.viewport);
      await screenshot(page, width, "customer-page");
    }
  });

  it("--html takes one id: --all or several are refused (exit 2), an unknown id is exit 1", async () => {
    const build = join(dir, "build");
    const two = await runCli([
      "liabilities",
      "proof",
      "--out",
      build,
      "alice",
      "c1",
      "--html",
      join(dir, "x.html"),
    ]);
    expect(two.exitCode).toBe(2);
    expect(two.stderr).toContain("--html: one customer's page");
    const none = await runCli([
      "liabilities",
      "proof",
      "--out",
      build,
      "nobody",
      "--html",
      join(dir, "x.html"),
    ]);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain('customer "nobody" is not in the build');
    expect(existsSync(join(dir, "x.html"))).toBe(false);
  });

  it("liabilities verify --root: chaingw's own proof against the announced root, with or without the commitment", async () => {
    const build = join(dir, "build");
    const proof = join(dir, "alice.json");
    writeFileSync(proof, (await runCli(["liabilities", "proof", "--out", build, "alice"])).stdout);
    const verify = (...args: string[]) =>
      runCli(["liabilities", "verify", proof, "--customer", "alice", ...args]);
    const alone = await verify("--root", `0x${commitment.root.toUpperCase()}`);
    expect(alone.exitCode, alone.stderr).toBe(0);
    expect(alone.stdout).toBe(
      `customer "alice": 1.50000000 BTC, 20.250000 USDT, 0.000000000000000001 ETH included in the liabilities whose root is ${commitment.root} (the root given with --root; no commitment read)\n  the root's totals were not read: no commitment was given (--commitment), only the root\n`,
    );
    const both = await verify("--root", commitment.root, "--commitment", join(build, "commitment.json"));
    expect(both.exitCode, both.stderr).toBe(0);
    expect(both.stdout).toContain(`whose root is ${commitment.root} ("snapshot 2026-12-01", created`);
    expect(both.stdout).toContain(`commitment digest ${commitment.digest})`);
    const other = "cd".repeat(32);
    const wrong = await verify("--root", other);
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stdout).toContain(
      `the proof names the root ${commitment.root}, not the announced root ${other} (--root)`,
    );
    const wrongBoth = await verify("--root", other, "--commitment", join(build, "commitment.json"));
    expect(wrongBoth.exitCode).toBe(1);
    expect(wrongBoth.stdout).toContain(
      `the commitment's root ${commitment.root} is not the announced root ${other} (--root)`,
    );
    // the forger's copy, consistent with itself (leaf and balance raised), against the announced root alone
    const p = JSON.parse(readFileSync(proof, "utf8"));
    const l = p.leaves.find((x: any) => x.amounts[0] !== "0");
    l.amounts[0] = (BigInt(l.amounts[0]) + 100000000n).toString();
    p.balances[0] = { asset: "BTC", amount: "2.5", base_units: "250000000" };
    const forged = join(dir, "alice-forged.json");
    writeFileSync(forged, JSON.stringify(p));
    const f = await runCli(["liabilities", "verify", forged, "--root", commitment.root]);
    expect(f.exitCode).toBe(1);
    expect(f.stdout).toMatch(/the amounts \(or the part\) were edited/);
    const bad = await verify("--root", "xyz");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain(`--root "xyz": not a root (64 hex digits, the tree's top hash)`);
  });

  it("the page computes merkle-sum-sha256/v1.1's root over the asset table: it says the table is bound; the table relabelled in the page (BTC↔USDT, or ETH's 18 decimals written 8) does not reach the root", async () => {
    const d = await dom(page);
    expect(d).toContain(
      "the root binds the asset table: BTC at 8 decimals, USDT at 6 decimals, ETH at 18 decimals: every amount is of the asset named",
    );
    const swap = (n: string) => (n === "BTC" ? "USDT" : n === "USDT" ? "BTC" : n);
    const swapped = changed("swapped-table", (p) => {
      p.assets = p.assets.map((a: { asset: string }) => ({ ...a, asset: swap(a.asset) }));
      p.balances = p.balances.map((b: { asset: string }) => ({ ...b, asset: swap(b.asset) }));
    });
    const decimals = changed("decimals-table", (p) => {
      p.assets[2].decimals = 8;
    });
    for (const file of [swapped, decimals]) {
      const x = await dom(file);
      expect(verdictOf(x)[0]).toBe("fails");
      expect(x).toMatch(
        /its amounts and path lead to the root [0-9a-f]{64}, not to the root [0-9a-f]{64} this proof names/,
      );
    }
  });
});
