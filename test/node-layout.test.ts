/**
 * Each coin's networks are its row's: `--network` takes what some local node has, a node whose coin lacks
 * the network is refused by name with that coin's list, and the help's list follows the table. The coin
 * below is this test's own row (a coin with devnet and no signet, as Dash Core has), beside the real table.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COINS, type Coin, networksOf } from "../src/chains/coins.js";
import { localNetworks, localNode, parseNetwork } from "../src/config/node-layout.js";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";

const params = (rpcPort: number, subdir: string) => ({
  genesis: rpcPort.toString(16).padStart(64, "0"),
  base58: { p2pkh: 140, p2sh: [19], wif: 239 },
  rpcPort,
  subdir,
});
const DEVCOIN: Coin = {
  id: "devcoin",
  name: "Devcoin",
  ticker: "DEV",
  decimals: 8,
  magic: "Devcoin Signed Message:\n",
  node: {
    name: "Devcoin Core",
    home: ".devcoin",
    conf: "devcoin.conf",
    subversion: /devcoin/i,
    cli: "devcoin-cli",
  },
  prints: "base58",
  uses: { messages: false, localNode: true },
  networks: {
    main: params(9998, ""),
    test: params(19998, "testnet3"),
    regtest: params(19898, "regtest"),
    devnet: params(19798, "devnet"),
  },
};
const TABLE = [...COINS, DEVCOIN];

const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "chaingw-layout-"));
  trackDir(d);
  return d;
};

/** a data directory holding `conf` (empty), under a fresh home */
function datadir(conf: string): { home: string; dir: string } {
  const home = tempDir();
  const dir = join(home, "node");
  mkdirSync(dir);
  writeFileSync(join(dir, conf), "");
  return { home, dir };
}

describe("per-coin network lists", () => {
  it("a coin's networks are its row's, in its order", () => {
    expect(networksOf(DEVCOIN)).toEqual(["main", "test", "regtest", "devnet"]);
    expect(networksOf(COINS.find((c) => c.id === "dogecoin") as Coin)).toEqual(["main", "test", "regtest"]);
    expect(localNetworks()).toEqual(["main", "test", "regtest", "signet"]);
    expect(localNetworks(TABLE)).toEqual(["main", "test", "regtest", "signet", "devnet"]);
  });

  it("--network takes a network some local node has, by name; testnet and mainnet as bitcoind says them", () => {
    expect(parseNetwork("devnet", "--network", TABLE)).toBe("devnet");
    expect(parseNetwork("testnet", "--network", TABLE)).toBe("test");
    expect(() => parseNetwork("devnet", "--network")).toThrow(
      'invalid --network: expected main, test, regtest, signet, got "devnet"',
    );
    expect(() => parseNetwork("devnet2", "CHAINGW_NETWORK", TABLE)).toThrow(
      'invalid CHAINGW_NETWORK: expected main, test, regtest, signet, devnet, got "devnet2"',
    );
  });

  it("a node of the coin that has the network: its port and its subdirectory's cookie", () => {
    const { home, dir } = datadir("devcoin.conf");
    const n = localNode("devnet", dir, { HOME: home }, TABLE);
    expect(n.urls).toEqual(["http://127.0.0.1:19798/"]);
    expect(n.cookiePath).toBe(join(dir, "devnet", ".cookie"));
    expect(n.what).toBe(`Devcoin Core devnet in ${dir}`);
  });

  it("a node whose coin lacks the network is refused by name, with that coin's networks", () => {
    const dev = datadir("devcoin.conf");
    expect(() => localNode("signet", dev.dir, { HOME: dev.home }, TABLE)).toThrow(
      `network "signet": Devcoin Core in ${dev.dir} has none of that name; its networks are main, test, regtest or devnet`,
    );
    const btc = datadir("bitcoin.conf");
    expect(() => localNode("devnet", btc.dir, { HOME: btc.home }, TABLE)).toThrow(
      `network "devnet": Bitcoin Core in ${btc.dir} has none of that name; its networks are main, test, regtest or signet`,
    );
    // a config file that selects a network its coin lacks
    writeFileSync(join(btc.dir, "bitcoin.conf"), "chain=devnet\n");
    expect(() => localNode(undefined, btc.dir, { HOME: btc.home }, TABLE)).toThrow(
      `network "devnet": Bitcoin Core in ${btc.dir} has none of that name`,
    );
  });

  it("no data directory given: the home directory of a node that has the network", () => {
    const home = tempDir();
    mkdirSync(join(home, ".bitcoin"));
    mkdirSync(join(home, ".devcoin"));
    expect(localNode("devnet", undefined, { HOME: home }, TABLE).urls).toEqual(["http://127.0.0.1:19798/"]);
    expect(localNode("signet", undefined, { HOME: home }, TABLE).urls).toEqual(["http://127.0.0.1:38332/"]);
  });

  it("Dogecoin Core's log names it \"Dogecoin\": its regtest port, not a guess among every node's", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "regtest"));
    // Dogecoin Core 1.14's InitLogging: "Dogecoin version v1.14.6.0-…" (no "Command-line arg" lines)
    writeFileSync(
      join(dir, "regtest", "debug.log"),
      "2026-11-28 19:00:00 \n2026-11-28 19:00:00 Dogecoin version v1.14.6.0-g0b6e8b0\n2026-11-28 19:00:00 Using data directory x\n",
    );
    const n = localNode("regtest", dir, { HOME: dir });
    expect(n.urls).toEqual(["http://127.0.0.1:18332/"]);
    expect(n.what).toBe(`Dogecoin Core regtest in ${dir}`);
    expect(() => localNode("signet", dir, { HOME: dir })).not.toThrow();
  });

  it("a directory that names no node: only the nodes with the network are tried", () => {
    const home = tempDir();
    const n = localNode("devnet", home, { HOME: home }, TABLE);
    expect(n.urls).toEqual(["http://127.0.0.1:19798/"]);
    const r = localNode("regtest", home, { HOME: home }, TABLE);
    expect(r.urls).toEqual([
      "http://127.0.0.1:18443/",
      "http://127.0.0.1:19443/",
      "http://127.0.0.1:18332/",
      "http://127.0.0.1:19898/",
    ]);
  });

  it("a node's network is named by the one naming function: testnet, and no word for main", () => {
    const { dir } = datadir("bitcoin.conf");
    expect(localNode("test", dir, { HOME: dir }).what).toBe(`Bitcoin Core testnet in ${dir}`);
    expect(localNode("main", dir, { HOME: dir }).what).toBe(`Bitcoin Core in ${dir}`);
    // a guess among the nodes that have the network names them all, the network once
    const home = tempDir();
    expect(localNode("test", home, { HOME: home }).what).toMatch(
      new RegExp(`^Bitcoin Core, Litecoin Core or Dogecoin Core testnet in ${home} \\(no `),
    );
  });

  it("the command line refuses a network no local node has, by name (exit 2), nothing sent", async () => {
    const r = await runCli(["--network", "devnet", "getblockcount"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('invalid --network: expected main, test, regtest, signet, got "devnet"');
    expect(r.stdout).toBe("");
  });
});
