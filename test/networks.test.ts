/**
 * The one network table (src/chains/networks.ts), in process: every network one row with one name, the
 * EVM and TRON groups' chain-id lookups, solvency's `--backing` names and the default backings read from it,
 * and the UTXO rows from the coin table's genesis hashes. Against real nodes: evm-reserves (anvil's 31337),
 * tron-fixture, solvency-snapshot-identity.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KNOWN_NETWORKS, knownNativeMirror, networkNamed, wellKnownBackings } from "../src/chains/assets.js";
import { COINS, coinNetworkLabel, coinOfNode, sentenceList } from "../src/chains/coins.js";
import { evmChain } from "../src/chains/evm.js";
import { evmCompatChain } from "../src/chains/evm-compat.js";
import { networks } from "../src/chains/networks.js";
import {
  decimalsOf,
  EXCHANGE_CHAINS,
  ed25519NetOf,
  exchangeChainOf,
  isTronNetwork,
  nativeOn,
  utxoCoinOf,
} from "../src/exchange/ownership/coins.js";
import { judgeRow } from "../src/exchange/ownership/judge.js";
import { detectLayout, readOwnershipFile } from "../src/exchange/ownership/read.js";
import { decodeUtxoAddress } from "../src/exchange/ownership/signatures.js";
import { tickerOf } from "../src/exchange/ownership/solvency.js";
import { assetKey } from "../src/exchange/ownership/verify.js";

describe("the network table", () => {
  it("one name per network, an alias never another's name; ids unique but where coins share a genesis", () => {
    const names = networks().flatMap((n) => [n.name, ...(n.aliases ?? [])]);
    expect(new Set(names).size).toBe(names.length);
    // Bitcoin Cash's networks carry Bitcoin's genesis blocks: the only ids two rows share
    const byId = new Map<string, string[]>();
    for (const n of networks()) byId.set(n.id, [...(byId.get(n.id) ?? []), n.name]);
    const shared = [...byId.values()].filter((v) => v.length > 1);
    expect(shared).toEqual([
      ["bitcoin", "bitcoin-cash"],
      ["bitcoin-testnet", "bitcoin-cash-testnet"],
      ["bitcoin-regtest", "bitcoin-cash-regtest"],
    ]);
    // --backing reads only the coins whose proofs chaingw verifies: an id names one network there
    expect(new Set(KNOWN_NETWORKS.map((n) => n.id)).size).toBe(KNOWN_NETWORKS.length);
  });

  it("the EVM and TRON groups name a chain id from the table, each only its own", () => {
    expect(evmChain.evm?.network(1n)).toEqual({ name: "ethereum", symbol: "ETH" });
    expect(evmChain.evm?.network(56n)).toEqual({ name: "bnb-smart-chain", symbol: "BNB" });
    expect(evmChain.evm?.network(31337n)?.name).toBe("anvil");
    expect(evmChain.evm?.network(728126428n)).toBeUndefined();
    expect(evmCompatChain.evm?.network(728126428n)).toEqual({ name: "tron-mainnet", symbol: "TRX" });
    expect(evmCompatChain.evm?.network(3448148188n)?.name).toBe("tron-nile");
    expect(evmCompatChain.evm?.network(1n)).toBeUndefined();
    // no rounding of a chain id past 2^53 into a row's
    expect(evmChain.evm?.network(2n ** 64n + 1n)).toBeUndefined();
  });

  it("TRON mainnet has one name, tron-mainnet; --backing still takes the older tron", () => {
    expect(networkNamed("tron-mainnet")?.id).toBe("evm:728126428");
    expect(networkNamed("tron")).toBe(networkNamed("tron-mainnet"));
    expect(KNOWN_NETWORKS.map((n) => n.name)).not.toContain("tron");
  });

  it("Celo, whose GoldToken is a known native mirror, is a row: the mirror's network read from the table", () => {
    expect(networkNamed("celo")).toMatchObject({
      id: "evm:42220",
      label: "Celo",
      test: false,
      native: { symbol: "CELO", decimals: 18 },
    });
    expect(networkNamed("celo")?.backs).toBeUndefined();
    expect(evmChain.evm?.network(42220n)).toEqual({ name: "celo", symbol: "CELO" });
    const gold = "0x471ece3750da237f93b8e339c536989b8978a438";
    expect(knownNativeMirror(networkNamed("celo")?.id as string, gold)).toBe(
      "Celo's CELO contract (GoldToken)",
    );
    expect(knownNativeMirror(networkNamed("polygon")?.id as string, `0x${"0".repeat(36)}1010`)).toBe(
      "Polygon's POL contract (MRC20)",
    );
    expect(knownNativeMirror(networkNamed("ethereum")?.id as string, gold)).toBeUndefined();
  });

  it("the names exchanges' files give a chain are its row's: its native coin read from there, once", () => {
    const named = networks().filter((n) => n.exchangeNames);
    expect(named.map((n) => `${n.name}: ${n.exchangeNames?.join(" ")}`)).toEqual([
      "ethereum: ETH ERC20",
      "optimism: OPTIMISM",
      "bnb-smart-chain: BSC BEP20 BNB",
      "polygon: POLYGON POLY MATIC",
      "base: BASE",
      "arbitrum-one: ARBITRUM",
      "avalanche-c: AVAXC AVAX AVALANCHE AVALANCHE C-CHAIN",
      "tron-mainnet: TRON TRX TRC20",
    ]);
    const all = named.flatMap((n) => n.exchangeNames ?? []);
    expect(new Set(all).size).toBe(all.length);
    for (const n of named) {
      expect(n.test, n.name).toBe(false);
      for (const name of n.exchangeNames ?? [])
        for (const ticker of [n.native.symbol, ...(n.native.formerSymbols ?? [])]) {
          expect(nativeOn(ticker, name), `${ticker} on ${name}`).toBe(true);
          expect(decimalsOf(ticker, name), `${ticker} on ${name}`).toBe(n.native.decimals);
          expect(isTronNetwork(name), name).toBe(n.name === "tron-mainnet");
        }
    }
    // a native coin on another chain's name is not its own; a chain no row has, neither coin nor network
    expect(nativeOn("BNB", "ERC20")).toBe(false);
    expect(nativeOn("ETH", "STARKNET")).toBe(true);
    expect(nativeOn("FOO", "BTTC")).toBeUndefined();
    // a well-known token's places on the names of the networks its contracts are on, not elsewhere
    expect(decimalsOf("USDT", "TRC20")).toBe(6);
    expect(decimalsOf("USDT-ERC20", "ERC20")).toBe(6);
    expect(decimalsOf("USDT", "BSC")).toBeUndefined();
  });

  it("code names a network by its one name, never by an alias kept for what people type", () => {
    const aliases = new Set(networks().flatMap((n) => n.aliases ?? []));
    const files = readdirSync("src", { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    const used: string[] = [];
    for (const f of files)
      for (const m of readFileSync(join("src", f), "utf8").matchAll(/networkNamed\("([^"]+)"\)/g))
        used.push(`${f}: ${m[1]}`);
    expect(used.length).toBeGreaterThan(2);
    expect(used.filter((u) => aliases.has(u.split(": ")[1] as string))).toEqual([]);
  });

  it("the native coins' default backings come from the rows that back one, mainnets only", () => {
    const natives = networks().filter((n) => n.backs);
    expect(natives.map((n) => `${n.backs} ${n.name}`)).toEqual([
      "BTC bitcoin",
      "LTC litecoin",
      "DOGE dogecoin",
      "ETH ethereum",
      "TRX tron-mainnet",
    ]);
    for (const n of natives) {
      expect(n.test).toBe(false);
      expect(wellKnownBackings(n.backs as string)).toEqual({
        decimals: n.native.decimals,
        backings: [{ network: n.id, label: `${n.native.name} on ${n.label}` }],
      });
    }
    expect(wellKnownBackings("LTC")?.backings[0]?.label).toBe("litecoin on Litecoin");
    expect(wellKnownBackings("ETH")?.backings[0]?.label).toBe("ether on Ethereum");
  });

  it("a UTXO network is its coin's genesis, named and labelled by the one naming function", () => {
    for (const coin of COINS)
      for (const [net, params] of Object.entries(coin.networks)) {
        const row = networks().find((n) => n.coin === coin && n.id === `utxo:${params?.genesis}`);
        expect(row, `${coin.id} ${net}`).toBeDefined();
      }
    const ltc = COINS.find((c) => c.id === "litecoin")!;
    expect(coinNetworkLabel(ltc, "main")).toBe("Litecoin");
    expect(coinNetworkLabel(ltc, "test")).toBe("Litecoin testnet");
    expect(networkNamed("litecoin-testnet")?.label).toBe("Litecoin testnet");
    expect(networkNamed("dogecoin-regtest")?.label).toBe("Dogecoin regtest");
    // a coin whose addresses chaingw does not decode backs nothing: no name --backing takes
    expect(networkNamed("bitcoin-cash")).toBeUndefined();
    expect(networks().find((n) => n.name === "bitcoin-cash")?.label).toBe("Bitcoin Cash");
  });

  it("a node's coin is its chain's (genesis); the user-agent only between coins sharing a genesis", () => {
    const genesis = (id: string, net: "main" | "test" | "regtest") =>
      COINS.find((c) => c.id === id)?.networks[net]?.genesis as string;
    // Litecoin's chain under any name is Litecoin; a chain no row has is no coin, whatever it says
    expect(coinOfNode(genesis("litecoin", "regtest"), "/Satoshi:27.0.0/")?.id).toBe("litecoin");
    expect(coinOfNode(genesis("litecoin", "main"), "")?.id).toBe("litecoin");
    expect(coinOfNode("ab".repeat(32), "/LitecoinCore:0.21.4/")).toBeUndefined();
    // Bitcoin Cash kept Bitcoin's genesis blocks: the user-agents Bitcoin Core and BCHN print tell them apart
    expect(coinOfNode(genesis("bitcoin", "main"), "/Satoshi:27.0.0/")?.id).toBe("bitcoin");
    expect(coinOfNode(genesis("bitcoin", "main"), "/Bitcoin Cash Node:28.0.1(EB32.0)/")?.id).toBe(
      "bitcoin-cash",
    );
    expect(coinOfNode(genesis("bitcoin", "test"), "/LitecoinCore:0.21.4/")).toBeUndefined();
    expect(coinOfNode(genesis("bitcoin", "regtest"), "")).toBeUndefined();
  });

  it("the exchanges' files are decoded by the one decoder, and refused in the network's own name", () => {
    const btc = utxoCoinOf("BTC")!;
    // BIP173's P2WPKH vector and the genesis coinbase's address
    expect(decodeUtxoAddress(btc, "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4")).toMatchObject({
      kind: "p2wpkh",
    });
    expect(decodeUtxoAddress(btc, "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa")).toMatchObject({ kind: "p2pkh" });
    // the checksum's and witness rules' words are chains/address.ts's, whoever asks (BIP350: a v0
    // program under a bech32m checksum is invalid)
    expect(decodeUtxoAddress(btc, "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3")).toBe("bad base58check checksum");
    expect(decodeUtxoAddress(btc, "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh")).toBe(
      "witness v0 address must use bech32, not bech32m",
    );
    // a mainnet address read under --network regtest: named as the network read, not "mainnet"
    const regtest = utxoCoinOf("LTC", "regtest")!;
    expect(decodeUtxoAddress(regtest, "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa")).toBe(
      "base58 version 0 is not a Litecoin regtest address",
    );
    expect(decodeUtxoAddress(regtest, "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4")).toBe(
      "bech32 prefix bc is not a Litecoin regtest address",
    );
  });

  it("lists read as sentences", () => {
    expect(sentenceList(["Bitcoin"])).toBe("Bitcoin");
    expect(sentenceList(["Bitcoin", "Litecoin"])).toBe("Bitcoin or Litecoin");
    expect(sentenceList(["Bitcoin", "Litecoin", "Dash"])).toBe("Bitcoin, Litecoin or Dash");
    expect(sentenceList(["a", "b", "c"], "and")).toBe("a, b and c");
  });
});

/** The exchanges' address files chaingw reads: the real ones of shared/por-samples and test/fixtures. */
const OWNERSHIP_FILES = ["/work/shared/por-samples", join(__dirname, "fixtures", "exchange", "ownership")]
  .flatMap((d) => readdirSync(d, { recursive: true, encoding: "utf8" }).map((f) => join(d, f)))
  .filter((f) => f.endsWith(".csv"))
  .map((f) => ({ f, text: readFileSync(f, "utf8") }))
  .filter(({ text }) => detectLayout(text) !== undefined);

/** Network cells of the real files that name no chain, and why (each must still occur in a file). */
const NOT_CHAINS: Record<string, string> = {
  AETHUSDT: "HTX's USDT-aEthUSDT: Aave's aEthUSDT, a token, after the coin",
  USDC: "HTX's BASE-USDC, SOL-USDC, STEAK-USDC: the chain (or a vault token) first, the token after",
};

describe("the chain names of exchanges' files (exchange/ownership/coins.ts EXCHANGE_CHAINS)", () => {
  it("one entry per chain, a spelling in one entry only; a network row's spellings and coin are the row's", () => {
    const all = EXCHANGE_CHAINS.flatMap((c) => c.names);
    expect(new Set(all).size).toBe(all.length);
    expect(new Set(EXCHANGE_CHAINS.map((c) => c.key)).size).toBe(EXCHANGE_CHAINS.length);
    for (const c of EXCHANGE_CHAINS) {
      expect(c.names[0], c.key).toBe(c.key);
      for (const n of c.names) expect(n, c.key).toBe(n.toUpperCase());
      if (!c.network) continue;
      const row = networkNamed(c.network);
      expect(c.names, c.key).toEqual(row?.exchangeNames);
      expect(c.natives.map((n) => n.symbol)).toEqual([
        row?.native.symbol,
        ...(row?.native.formerSymbols ?? []),
      ]);
    }
    // a coin has one number of places wherever it is native
    const places = new Map<string, Set<number>>();
    for (const c of EXCHANGE_CHAINS)
      for (const n of c.natives) places.set(n.symbol, (places.get(n.symbol) ?? new Set()).add(n.decimals));
    expect([...places].filter(([, d]) => d.size > 1)).toEqual([]);
  });

  it("every spelling means one chain to each use: EVM or not, a chain and no asset, folded to its key, its coins native", () => {
    // a real EVM row (OKX 2022, ETH-ARBITRUM) moved to each name: proven only where the name is an EVM chain's
    const okx = readOwnershipFile(
      readFileSync(join(__dirname, "fixtures/exchange/ownership/okx_por_example_2022-11.csv"), "utf8"),
    );
    const evmRow = okx.rows.find((r) => r.coin === "ETH-ARBITRUM") as (typeof okx.rows)[number];
    expect(judgeRow(evmRow, okx.layout).status).toBe("proven");
    for (const c of EXCHANGE_CHAINS)
      for (const name of c.names) {
        const at = `${name} (${c.key})`;
        const judged = judgeRow({ ...evmRow, network: name, coin: "USDT" }, okx.layout);
        expect(judged.status === "proven" && /^EVM/.test(judged.form ?? ""), at).toBe(c.kind === "hex");
        expect(isTronNetwork(name), at).toBe(c.kind === "tron");
        expect(ed25519NetOf(name.toLowerCase()), at).toBe(c.kind === "ed25519" ? c.key : undefined);
        expect(exchangeChainOf(name.toLowerCase()), at).toBe(c);
        // solvency: a chain's name is no asset, before the asset or after it
        expect(tickerOf({ coin: `USDT-${name}` }), at).toBe("USDT");
        if (!name.includes("-")) expect(tickerOf({ coin: `${name}-USDT` }), at).toBe("USDT");
        // verify: one chain's spellings are one asset's, in the network cell or in the coin
        expect(assetKey({ coin: "USDT", network: name }), at).toBe(
          assetKey({ coin: "USDT", network: c.key }),
        );
        // a coin's parts are split at "-": a hyphenated name ("AVALANCHE C-CHAIN") folds from the network cell,
        // which the readers set from the coin's tail where the file has no network column
        if (!name.includes("-"))
          expect(assetKey({ coin: `USDT-${name}`, network: "" }), at).toBe(
            assetKey({ coin: "USDT", network: c.key }),
          );
        for (const n of c.natives) {
          expect(nativeOn(n.symbol, name), `${n.symbol} on ${at}`).toBe(true);
          expect(decimalsOf(n.symbol, name), `${n.symbol} on ${at}`).toBe(n.decimals);
        }
      }
    // two chains never fold together
    const keys = EXCHANGE_CHAINS.map((c) => assetKey({ coin: "USDT", network: c.key }));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("every network cell of the real files is a chain's, a Bitcoin-family coin's, or listed as none", () => {
    expect(OWNERSHIP_FILES.length).toBeGreaterThan(8);
    const unknown = new Set<string>();
    const seen = new Set<string>();
    for (const { f, text } of OWNERSHIP_FILES)
      for (const r of readOwnershipFile(text).rows) {
        const cell = r.network.toUpperCase();
        seen.add(cell);
        if (cell === "" || exchangeChainOf(cell) || utxoCoinOf(cell)) continue;
        if (!(cell in NOT_CHAINS)) unknown.add(`${f} line ${r.line}: ${r.network}`);
      }
    expect([...unknown]).toEqual([]);
    for (const cell of Object.keys(NOT_CHAINS)) {
      expect(seen.has(cell), cell).toBe(true);
      expect(exchangeChainOf(cell), cell).toBeUndefined();
    }
  });
});
