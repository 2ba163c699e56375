/**
 * The well-known asset table and `--backing`'s reader (src/chains/assets.ts, cli/commands/solvency-backing.ts),
 * in process: the contracts against their published forms (Tether's TRON contract TR7NHq… is
 * 41a614f803b6fd780986a42c78ec9c7f77e6ded13c in TRON's hex, as TronScan shows it), every (network, token)
 * backing one asset, and the networks named from the coin table. Against real nodes: solvency-snapshot-identity.
 */
import { describe, expect, it } from "vitest";
import { KNOWN_NETWORKS, networkNamed, wellKnownAt, wellKnownBackings } from "../src/chains/assets.js";
import { backingRules, parseBacking } from "../src/cli/commands/solvency-backing.js";

describe("well-known assets", () => {
  it("USDT and USDC: the issuers' contracts on Ethereum and TRON, TRON's in its 20-byte hex", () => {
    expect(wellKnownBackings("USDT")?.backings).toEqual([
      {
        network: "evm:1",
        token: "0xdac17f958d2ee523a2206206994597c13d831ec7",
        label: "Tether's USDT on Ethereum",
      },
      {
        network: "evm:728126428",
        token: "0xa614f803b6fd780986a42c78ec9c7f77e6ded13c",
        label: "Tether's USDT on TRON",
      },
    ]);
    expect(wellKnownBackings("USDC")?.backings.map((b) => b.token)).toEqual([
      "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
      "0x3487b63d30b5b2c87fb7ffa8bcfade38eaac1abe",
    ]);
    expect(wellKnownBackings("XYZ")).toBeUndefined();
  });

  it("every (network, token) backs one asset, and only mainnets back by default", () => {
    const seen = new Map<string, string>();
    for (const asset of ["BTC", "LTC", "ETH", "TRX", "USDT", "USDC", "DAI"])
      for (const b of wellKnownBackings(asset)?.backings ?? []) {
        const key = `${b.network} ${b.token ?? "native"}`;
        expect(seen.get(key), key).toBeUndefined();
        seen.set(key, asset);
        expect(KNOWN_NETWORKS.find((n) => n.id === b.network)?.test).toBe(false);
      }
    expect(seen.size).toBe(9);
  });

  it("UTXO networks come from the coin table's genesis hashes", () => {
    expect(networkNamed("bitcoin")?.id).toBe(
      "utxo:000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
    );
    expect(networkNamed("litecoin")?.id).toBe(
      "utxo:12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2",
    );
    expect(networkNamed("litecoin-regtest")).toMatchObject({ label: "Litecoin regtest", test: true });
    expect(wellKnownAt("evm:1", undefined)?.label).toBe("ether on Ethereum");
  });
});

describe("--backing", () => {
  it("reads names, genesis hashes, evm:<id>, TRON T-addresses; declared backings replace the table's", () => {
    expect(parseBacking("USDT=tron:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t").ref).toEqual({
      network: "evm:728126428",
      token: "0xa614f803b6fd780986a42c78ec9c7f77e6ded13c",
      label: "Tether's USDT on TRON",
    });
    // a chain id is named by its number: the table's label only where the node's genesis shows it (a network
    // declared by chain id is any node answering that id, a devnet on 8453 too)
    expect(parseBacking("X=evm:324:0x833589FCD6EDB6E08F4C7C32D4F71B54BDA02913").ref).toEqual({
      network: "evm:324",
      token: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
      label: "the token at 0x833589fcd6edb6e08f4c7c32d4f71b54bda02913 on evm:324",
    });
    expect(parseBacking("X=evm:8453:0x833589FCD6EDB6E08F4C7C32D4F71B54BDA02913").ref.label).toBe(
      "the token at 0x833589fcd6edb6e08f4c7c32d4f71b54bda02913 on chain id 8453",
    );
    expect(parseBacking(`LTC=${"A".repeat(64)}`).ref.network).toBe(`utxo:${"a".repeat(64)}`);
    const rules = backingRules(
      ["USDT=ethereum:0xdac17f958d2ee523a2206206994597c13d831ec7"],
      [{ asset: "USDT" }, { asset: "BTC" }, { asset: "FOO" }],
    );
    expect(rules.get("USDT")).toMatchObject({ source: "declared", refs: [{ network: "evm:1" }] });
    expect(rules.get("BTC")?.source).toBe("well-known");
    expect(rules.get("FOO")).toEqual({ refs: [], source: "none" });
  });

  it("refuses what it cannot read, naming the flag", () => {
    for (const [v, msg] of [
      ["LTC", "expected ASSET=NETWORK or ASSET=NETWORK:TOKEN"],
      ["LTC=evm:01", '"evm:01" is not a network'],
      ["LTC=bitcoin:0x" + "1".repeat(40), "bitcoin is a UTXO network: it has no tokens"],
      ["USDT=tron:T" + "1".repeat(33), "not a valid TRON address"],
    ] as const)
      expect(() => parseBacking(v), v).toThrow(msg);
  });
});
