/**
 * Help texts that name table rows read them from the tables at build time (scripts/gen-help.mjs writes
 * src/cli/help-lists.ts from src/cli/help-lists-of.ts): the written file is the tables' today, and every
 * row shows in the help a person reads (the built bin's --help).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KNOWN_NETWORKS, WELL_KNOWN_ASSETS } from "../src/chains/assets.js";
import { COINS, type Coin, MESSAGE_COINS, networksOf } from "../src/chains/coins.js";
import * as written from "../src/cli/help-lists.js";
import { helpListsOf, publisherOf } from "../src/cli/help-lists-of.js";
import { localNetworks } from "../src/config/node-layout.js";
import { ZK_FORMATS } from "../src/formats/binance.js";
import { EXCHANGE_OWNERSHIP } from "../src/formats/exchange-ownership.js";
import { formatsOf } from "../src/formats/registry.js";
import { runCli } from "./helpers/cli.js";

/** commander wraps help at the terminal's width: words are compared with the line breaks taken out */
const unwrapped = (s: string) => s.replace(/\s+/g, " ");

describe("help lists from the tables", () => {
  it("src/cli/help-lists.ts is what the tables give (npm run build rewrites it)", () => {
    expect({ ...written }).toEqual(helpListsOf());
  });

  it("solvency --help names every network --backing takes and every well-known asset", async () => {
    const r = await runCli(["solvency", "--help"]);
    expect(r.exitCode).toBe(0);
    const help = unwrapped(r.stdout);
    for (const n of KNOWN_NETWORKS) expect(help, n.name).toMatch(new RegExp(`[ (]${n.name}[,;) ]`));
    for (const a of WELL_KNOWN_ASSETS) expect(help, a).toContain(a);
    expect(help).toContain("(tron too)");
  });

  it("--help names every network --network takes, and a coin's own network joins the list", async () => {
    const r = await runCli(["--help"]);
    expect(r.exitCode).toBe(0);
    const help = unwrapped(r.stdout);
    expect(help).toContain(`--network <name> ${written.LOCAL_NETWORKS} (those its coin has)`);
    for (const n of localNetworks()) expect(written.LOCAL_NETWORKS, n).toMatch(new RegExp(`\\b${n}\\b`));
    // a row with a network no other local node has (the test's own: devnet, as Dash Core's)
    const bitcoin = COINS[0] as Coin;
    const devcoin: Coin = {
      ...bitcoin,
      id: "devcoin",
      name: "Devcoin",
      node: { ...bitcoin.node, name: "Devcoin Core" },
      networks: {
        main: bitcoin.networks.main,
        devnet: { ...bitcoin.networks.main, rpcPort: 19798, subdir: "devnet" },
      },
    };
    expect(helpListsOf([...COINS, devcoin]).LOCAL_NETWORKS).toBe("main, test, regtest, signet or devnet");
  });

  it("the README's --network row names every local node's default ports, in its networks' order", () => {
    const readme = readFileSync("README.md", "utf8");
    for (const c of COINS.filter((x) => x.uses.localNode)) {
      const ports = networksOf(c).map((n) => c.networks[n]?.rpcPort);
      expect(readme, c.name).toContain(`${c.node.name} ${ports.join("/")}`);
    }
  });

  it("docs/proofs.md's table of well-known assets has a row per asset of the table", () => {
    const doc = readFileSync("docs/proofs.md", "utf8");
    for (const asset of WELL_KNOWN_ASSETS) expect(doc, asset).toContain(`\n  | ${asset} | `);
  });

  it("verify-message --help names every coin whose messages chaingw verifies", async () => {
    const r = await runCli(["verify-message", "--help"]);
    expect(r.exitCode).toBe(0);
    for (const c of MESSAGE_COINS) expect(unwrapped(r.stdout), c.name).toContain(c.name);
    expect(unwrapped(r.stdout)).toContain("Bitcoin, Litecoin or Dogecoin address");
  });

  it("liabilities verify --help names every exchange whose inclusion proofs the registry reads", async () => {
    const r = await runCli(["liabilities", "verify", "--help"]);
    expect(r.exitCode).toBe(0);
    const help = unwrapped(r.stdout);
    const exchanges = formatsOf("liabilities").filter((f) => !f.name.startsWith("chaingw"));
    expect(exchanges.length).toBeGreaterThan(8);
    for (const f of exchanges) expect(help, f.name).toContain(publisherOf(f));
    expect(help).toContain("OKX, Bitget");
  });

  it("reserves verify --help names every format and layout --proof-format takes, and their publishers", async () => {
    const r = await runCli(["reserves", "verify", "--help"]);
    expect(r.exitCode).toBe(0);
    const help = unwrapped(r.stdout);
    for (const f of formatsOf("reserves")) expect(help, f.name).toMatch(new RegExp(`[ (]${f.name}[,;) ]`));
    for (const f of EXCHANGE_OWNERSHIP) expect(help, f.name).toContain(publisherOf(f));
  });

  it("--datadir's help, config show and config init's starter name every local node, its networks and home", async () => {
    const locals = COINS.filter((c) => c.uses.localNode);
    expect(locals.map((c) => c.name)).toContain("Dogecoin");
    const dir = mkdtempSync(join(tmpdir(), "chaingw-help-"));
    try {
      const env = { CHAINGW_CONFIG: join(dir, "config.json") };
      const help = unwrapped((await runCli(["--help"])).stdout);
      const datadir = /--datadir <dir> (.*?\))/.exec(help)?.[1] ?? "";
      expect((await runCli(["config", "init"], { env })).exitCode).toBe(0);
      const show = await runCli(["config", "show"], { env });
      expect(show.exitCode).toBe(0);
      const shown = /^datadir .*$/m.exec(show.stdout)?.[0] ?? "";
      const starter = JSON.parse(readFileSync(env.CHAINGW_CONFIG, "utf8")).profiles.local["//"] as string;
      for (const c of locals) {
        const home = `~/${c.node.home}`;
        expect(datadir, c.name).toContain(home);
        expect(shown, c.name).toContain(home);
        expect(starter, c.name).toContain(home);
        expect(starter, c.name).toContain(c.node.name);
      }
      for (const n of localNetworks()) expect(starter, n).toMatch(new RegExp(`[(, ]${n}[,)]`));
      // the order they are looked in: the table's
      expect(datadir).toContain(locals.map((c) => `~/${c.node.home}`).join(", else "));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--asset-slots names the zk formats' exchanges; solvency's refusal of a file names the address-file layouts'", async () => {
    const help = unwrapped((await runCli(["liabilities", "verify", "--help"])).stdout);
    const slots = /--asset-slots <n> (.*?) zk proofs/.exec(help)?.[1] ?? "";
    expect(ZK_FORMATS.length).toBe(3);
    for (const f of ZK_FORMATS) expect(slots, f.name).toContain(publisherOf(f));
    const dir = mkdtempSync(join(tmpdir(), "chaingw-help-"));
    try {
      const file = join(dir, "notes.txt");
      writeFileSync(file, "not an address file\n");
      const r = await runCli(["solvency", "--liabilities", file, "--reserves", file]);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe("");
      for (const f of EXCHANGE_OWNERSHIP) expect(r.stderr, f.name).toContain(publisherOf(f));
      expect(r.stderr).toContain("or an exchange's address file (the layouts of OKX, HTX (Huobi), Poloniex)");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
