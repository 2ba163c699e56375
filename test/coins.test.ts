import { bytesToHex } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAddress, mixedFamilies } from "../src/chains/address.js";
import {
  COIN_NETWORKS,
  COINS,
  coinOf,
  coinOfSubversion,
  MESSAGE_COINS,
  networksOfPrefix,
} from "../src/chains/coins.js";
import { decodeProofAddress } from "../src/proof/address.js";
import { ProofInputError } from "../src/proof/errors.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";

// The coin table (src/chains/coins.ts) and the one address decoder that reads it (src/chains/address.ts).
// Sources of the vectors: BIP-173 and BIP-350 (github.com/bitcoin/bips bip-0173.mediawiki and
// bip-0350.mediawiki, "Test vectors"), the CashAddr spec (bitcoincashorg/bitcoincash.org spec/cashaddr.md,
// its legacy/CashAddr pairs), Bitcoin's genesis coinbase address, a real litecoind -regtest.

const why = (a: string) => {
  const r = checkAddress(a);
  return r.ok ? "ok" : r.why;
};
const proofError = (a: string): string => {
  try {
    decodeProofAddress(a);
  } catch (e) {
    if (e instanceof ProofInputError) return e.reason;
    throw e;
  }
  return "decoded";
};

describe("the coin table", () => {
  it("holds one row per coin, each with the facts its readers need", () => {
    expect(COINS.map((c) => c.id)).toEqual(["bitcoin", "litecoin", "dogecoin", "bitcoin-cash"]);
    expect(COINS.map((c) => c.ticker)).toEqual(["BTC", "LTC", "DOGE", "BCH"]);
    expect(new Set(COINS.map((c) => c.id)).size).toBe(COINS.length);
    for (const c of COINS) {
      // a coin's own word: Dash's is "DarkCoin Signed Message:\n"
      expect(c.magic, c.id).toMatch(/^[A-Za-z]+ Signed Message:\n$/);
      expect(c.decimals, c.id).toBe(8);
      expect(c.networks.main, c.id).toBeDefined();
    }
    for (const { coin, network, params } of COIN_NETWORKS) {
      const at = `${coin.id} ${network}`;
      expect(params.genesis, at).toMatch(/^[0-9a-f]{64}$/);
      expect(params.subdir === "", at).toBe(network === "main");
      expect(params.base58.p2sh, at).not.toContain(params.base58.p2pkh);
    }
  });

  it("never reads one base58 version as P2PKH on one network and P2SH on another of the message coins", () => {
    const kinds = new Map<number, string>();
    for (const { coin, params } of COIN_NETWORKS) {
      if (!coin.uses.messages) continue;
      const seen = [
        [params.base58.p2pkh, "p2pkh"] as const,
        ...params.base58.p2sh.map((v) => [v, "p2sh"] as const),
      ];
      for (const [v, kind] of seen) {
        expect(kinds.get(v) ?? kind, `version ${v}`).toBe(kind);
        kinds.set(v, kind);
      }
    }
  });

  it("knows each magic and which coins chaingw reads messages of", () => {
    expect(coinOf("bitcoin")?.magic).toBe("Bitcoin Signed Message:\n");
    expect(coinOf("litecoin")?.magic).toBe("Litecoin Signed Message:\n");
    expect(coinOf("dogecoin")?.magic).toBe("Dogecoin Signed Message:\n");
    // Bitcoin Cash kept Bitcoin's
    expect(coinOf("bitcoin-cash")?.magic).toBe("Bitcoin Signed Message:\n");
    expect(MESSAGE_COINS.map((c) => c.id)).toEqual(["bitcoin", "litecoin", "dogecoin"]);
    expect(coinOf("monero")).toBeUndefined();
  });

  it("names a node's coin from its subversion, the longest match winning", () => {
    expect(coinOfSubversion("/Satoshi:27.0.0/")?.id).toBe("bitcoin");
    expect(coinOfSubversion("/Satoshi:27.1.0/Knots:20240801/")?.id).toBe("bitcoin");
    expect(coinOfSubversion("/LitecoinCore:0.21.2.1/")?.id).toBe("litecoin");
    expect(coinOfSubversion("/Shibetoshi:1.14.6/")?.id).toBe("dogecoin");
    expect(coinOfSubversion("/Bitcoin Cash Node:28.0.1(EB32.0)/")?.id).toBe("bitcoin-cash");
    expect(coinOfSubversion("/Bitcoin ABC:0.30.0(EB32.0)/")?.id).toBe("bitcoin-cash");
    expect(coinOfSubversion("/Geth:1.14/")).toBeUndefined();
  });

  it("says whose a prefix is", () => {
    const whose = (p: string) => networksOfPrefix(p).map((n) => `${n.coin.id}:${n.network}`);
    expect(whose("hrp:bc")).toEqual(["bitcoin:main"]);
    expect(whose("hrp:tb")).toEqual(["bitcoin:test", "bitcoin:signet"]);
    expect(whose("hrp:rltc")).toEqual(["litecoin:regtest"]);
    expect(whose("base58:30")).toEqual(["dogecoin:main"]);
    expect(whose("base58:22")).toEqual(["dogecoin:main"]);
    expect(whose("base58:113")).toEqual(["dogecoin:test"]);
    // Dogecoin's regtest prints Bitcoin's test versions
    expect(whose("base58:111")).toContain("dogecoin:regtest");
    expect(whose("base58:5")).toEqual(["bitcoin:main", "litecoin:main"]);
    // Bitcoin Cash nodes print CashAddr: a legacy address says nothing of Bitcoin Cash
    expect(whose("base58:0")).toEqual(["bitcoin:main"]);
    expect(whose("hrp:xyz")).toEqual([]);
  });
});

describe("the address decoder: BIP-173 and BIP-350 vectors", () => {
  // valid: [address, scriptPubKey]
  const valid: [string, string][] = [
    ["BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "0014751e76e8199196d454941c45d1b3a323f1433bd6"],
    [
      "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7",
      "00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262",
    ],
    [
      "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y",
      "5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6",
    ],
    ["BC1SW50QGDZ25J", "6002751e"],
    ["bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", "5210751e76e8199196d454941c45d1b3a323"],
    [
      "tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c",
      "5120000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433",
    ],
    [
      "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0",
      "512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",
    ],
  ];
  it("decodes every valid address to its scriptPubKey", () => {
    for (const [address, script] of valid) {
      expect(why(address), address).toBe("ok");
      expect(bytesToHex(decodeProofAddress(address).scriptPubKey), address).toBe(script);
    }
  });

  // invalid addresses of BIP-350 (and BIP-173's of the same kinds), with the reason a user reads
  const invalid: [string, RegExp][] = [
    ["bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd", /must use bech32m/],
    ["tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf", /must use bech32m/],
    ["BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL", /must use bech32m/],
    ["bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh", /v0 address must use bech32/],
    ["tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47", /v0 address must use bech32/],
    ["bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4", /checksum or characters/],
    ["BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R", /witness version/],
    ["bc1pw5dgrnzv", /1 bytes \(2 to 40/],
    ["bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav", /41 bytes \(2 to 40/],
    ["BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P", /v0 program of 16 bytes/],
    ["tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq", /base58/],
    ["bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf", /padding/],
    ["tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j", /padding/],
    ["bc1gmk9yu", /checksum or characters|witness version/],
  ];
  it("refuses every invalid one, in both readers, with the same reason", () => {
    for (const [address, reason] of invalid) {
      expect(why(address), address).toMatch(reason);
      expect(proofError(address), address).toBe(why(address));
    }
  });

  it("takes any prefix in address lists, only the message coins' in proofs", () => {
    // BIP-350's "invalid human-readable part": a good checksum under a prefix no coin has
    const tc = "tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut";
    expect(why(tc)).toBe("ok");
    expect(proofError(tc)).toMatch(/tc belongs to no Bitcoin, Litecoin or Dogecoin network/);
    // a Dogecoin address: its messages are read (uses.messages)
    expect(why("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L")).toBe("ok");
    expect(proofError("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L")).toBe("decoded");
    expect(why("")).toBe("empty");
  });
});

describe("base58 addresses and CashAddr", () => {
  it("decodes Bitcoin's genesis coinbase address as P2PKH of its key hash", () => {
    const a = decodeProofAddress("1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa");
    expect(a.kind).toBe("p2pkh");
    expect(bytesToHex(a.hash)).toBe("62e907b15cbf27d5425399ebf6f0fb50ebb88f18");
    expect(a.networks).toEqual([{ chain: "bitcoin", net: "main" }]);
  });

  it("reads a Bitcoin Cash legacy address as Bitcoin's, and does not decode CashAddr yet", () => {
    // the CashAddr spec's pair: the same hash160 in both forms
    expect(decodeProofAddress("1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu").networks).toEqual([
      { chain: "bitcoin", net: "main" },
    ]);
    expect(why("bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a")).toMatch(/not base58/);
  });

  it("refuses a list mixing Dogecoin's testnet with Bitcoin's mainnet, keeps Dogecoin's regtest with Bitcoin's", () => {
    expect(mixedFamilies(["base58:113", "base58:0"])).toMatch(/different networks/);
    expect(mixedFamilies(["base58:30", "base58:22"])).toBeUndefined();
    expect(mixedFamilies(["base58:111", "base58:196"])).toBeUndefined();
  });
});

describe("the table against a real node", () => {
  let ltc: LitecoinNode;
  beforeAll(async () => {
    ltc = await startLitecoind();
  });
  afterAll(() => ltc?.stop());

  it("litecoind -regtest: the genesis block, the node's subversion and its addresses are the table's", async () => {
    const regtest = coinOf("litecoin")?.networks.regtest;
    expect(await ltc.rpc<string>("getblockhash", [0])).toBe(regtest?.genesis);
    const info = await ltc.rpc<{ subversion: string }>("getnetworkinfo");
    expect(coinOfSubversion(info.subversion)?.id).toBe("litecoin");
    const bech32 = await ltc.newAddress();
    expect(decodeProofAddress(bech32).networks).toEqual([{ chain: "litecoin", net: "regtest" }]);
    for (const type of ["legacy", "p2sh-segwit"]) {
      const a = await ltc.rpc<string>("getnewaddress", ["", type]);
      const r = checkAddress(a);
      expect(r.ok && networksOfPrefix(r.value.prefix).some((n) => n.coin.id === "litecoin"), a).toBe(true);
    }
  });
});
