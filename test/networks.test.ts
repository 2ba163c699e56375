/**
 * The one network table (src/chains/networks.ts), in process: every network one row with one name, the
 * EVM and TRON groups' chain-id lookups, solvency's `--backing` names and the default backings read from it,
 * and the UTXO rows from the coin table's genesis hashes. Against real nodes: evm-reserves (anvil's 31337),
 * tron-fixture, solvency-snapshot-identity.
 */
import { describe, expect, it } from "vitest";
import { KNOWN_NETWORKS, networkNamed, wellKnownBackings } from "../src/chains/assets.js";
import { COINS, coinNetworkLabel, sentenceList } from "../src/chains/coins.js";
import { evmChain } from "../src/chains/evm.js";
import { evmCompatChain } from "../src/chains/evm-compat.js";
import { networks } from "../src/chains/networks.js";

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

  it("the native coins' default backings come from the rows that back one, mainnets only", () => {
    const natives = networks().filter((n) => n.backs);
    expect(natives.map((n) => `${n.backs} ${n.name}`)).toEqual([
      "BTC bitcoin",
      "LTC litecoin",
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
    expect(networkNamed("dogecoin")).toBeUndefined();
    expect(networks().find((n) => n.name === "dogecoin")?.label).toBe("Dogecoin");
  });

  it("lists read as sentences", () => {
    expect(sentenceList(["Bitcoin"])).toBe("Bitcoin");
    expect(sentenceList(["Bitcoin", "Litecoin"])).toBe("Bitcoin or Litecoin");
    expect(sentenceList(["Bitcoin", "Litecoin", "Dash"])).toBe("Bitcoin, Litecoin or Dash");
    expect(sentenceList(["a", "b", "c"], "and")).toBe("a, b and c");
  });
});
