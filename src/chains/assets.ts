/**
 * Which network, and for a token which contract, an asset of a liabilities commitment is. `solvency` counts a
 * reserve proof for an asset only when the network its node re-derives (a UTXO chain's genesis block hash,
 * `getblockhash 0`; an EVM-style chain's `eth_chainId`) and the proof's contract are the asset's backing:
 * the auditor's `--backing ASSET=NETWORK[:TOKEN]`, else the well-known table below. Test networks are named
 * here so that `--backing` can use them, and never back an asset by default.
 */
import { looksLikeTronBase58, tronToHex20 } from "./tron.js";

/** A network as solvency identifies it: "utxo:<genesis block hash>" or "evm:<chain id>". */
export type NetworkId = string;

export interface KnownNetwork {
  /** the name `--backing` takes */
  name: string;
  id: NetworkId;
  /** how a verdict names it */
  label: string;
  /** a test network: never backs an asset unless the auditor declares it */
  test: boolean;
}

const utxoNet = (name: string, genesis: string, label: string, test: boolean): KnownNetwork => ({
  name,
  id: `utxo:${genesis}`,
  label,
  test,
});
const evmNet = (name: string, chainId: number, label: string, test: boolean): KnownNetwork => ({
  name,
  id: `evm:${chainId}`,
  label,
  test,
});

/** Genesis block hashes from each client's chainparams (Bitcoin Core, Litecoin Core); chain ids from their docs. */
export const KNOWN_NETWORKS: readonly KnownNetwork[] = [
  utxoNet("bitcoin", "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f", "Bitcoin", false),
  utxoNet(
    "bitcoin-testnet",
    "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943",
    "Bitcoin testnet3",
    true,
  ),
  utxoNet(
    "bitcoin-testnet4",
    "00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043",
    "Bitcoin testnet4",
    true,
  ),
  utxoNet(
    "bitcoin-signet",
    "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6",
    "Bitcoin signet",
    true,
  ),
  utxoNet(
    "bitcoin-regtest",
    "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206",
    "Bitcoin regtest",
    true,
  ),
  utxoNet("litecoin", "12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2", "Litecoin", false),
  utxoNet(
    "litecoin-testnet",
    "4966625a4b2851d9fdee139e56211a0d88575f59ed816ff5e6a63deb4e3e29a0",
    "Litecoin testnet4",
    true,
  ),
  utxoNet(
    "litecoin-regtest",
    "530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9",
    "Litecoin regtest",
    true,
  ),
  evmNet("ethereum", 1, "Ethereum", false),
  evmNet("sepolia", 11155111, "Ethereum Sepolia", true),
  evmNet("tron", 728126428, "TRON", false),
  evmNet("tron-nile", 3448148188, "TRON Nile", true),
  evmNet("tron-shasta", 2494104990, "TRON Shasta", true),
  evmNet("anvil", 31337, "anvil (chain id 31337)", true),
];

/** One network and, for a token, one contract (0x + 40 lowercase hex) that back an asset. */
export interface BackingRef {
  network: NetworkId;
  /** undefined: the network's own coin */
  token?: string;
  /** how a verdict names it ("Tether's USDT on Ethereum") */
  label: string;
}

interface WellKnown {
  asset: string;
  decimals: number;
  backings: { network: string; token?: string; label: string }[];
}

/**
 * Well-known mainnet assets and what backs each by default. A stablecoin its issuer mints on two chains is
 * backed by either issue (the same issuer redeems both); every (network, contract) backs one asset only.
 * Contracts: the issuers' own lists (tether.to/en/supported-protocols, circle.com USDC contract addresses).
 */
const WELL_KNOWN: readonly WellKnown[] = [
  { asset: "BTC", decimals: 8, backings: [{ network: "bitcoin", label: "bitcoin on Bitcoin" }] },
  { asset: "LTC", decimals: 8, backings: [{ network: "litecoin", label: "litecoin on Litecoin" }] },
  { asset: "ETH", decimals: 18, backings: [{ network: "ethereum", label: "ether on Ethereum" }] },
  { asset: "TRX", decimals: 6, backings: [{ network: "tron", label: "TRX on TRON" }] },
  {
    asset: "USDT",
    decimals: 6,
    backings: [
      {
        network: "ethereum",
        token: "0xdac17f958d2ee523a2206206994597c13d831ec7",
        label: "Tether's USDT on Ethereum",
      },
      { network: "tron", token: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", label: "Tether's USDT on TRON" },
    ],
  },
  {
    asset: "USDC",
    decimals: 6,
    backings: [
      {
        network: "ethereum",
        token: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
        label: "Circle's USDC on Ethereum",
      },
      { network: "tron", token: "TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8", label: "Circle's USDC on TRON" },
    ],
  },
  {
    asset: "DAI",
    decimals: 18,
    backings: [
      {
        network: "ethereum",
        token: "0x6b175474e89094c44da98b954eedeac495271d0f",
        label: "MakerDAO's DAI on Ethereum",
      },
    ],
  },
];

export const networkNamed = (name: string): KnownNetwork | undefined =>
  KNOWN_NETWORKS.find((n) => n.name === name);

export const networkOf = (id: NetworkId): KnownNetwork | undefined => KNOWN_NETWORKS.find((n) => n.id === id);

/** "Litecoin regtest", or the id itself for a network the table does not know ("evm:8453"). */
export const networkLabel = (id: NetworkId): string => networkOf(id)?.label ?? id;

/** A token contract as the proofs hold it: 0x + 40 lowercase hex (a TRON T-address converted). */
export const tokenHex = (t: string): string => (looksLikeTronBase58(t) ? tronToHex20(t) : t.toLowerCase());

/** The table's backings of an asset (none for an asset it does not know). */
export function wellKnownBackings(asset: string): { decimals: number; backings: BackingRef[] } | undefined {
  const w = WELL_KNOWN.find((x) => x.asset === asset);
  if (!w) return undefined;
  return {
    decimals: w.decimals,
    backings: w.backings.map((b) => ({
      network: (networkNamed(b.network) as KnownNetwork).id,
      ...(b.token ? { token: tokenHex(b.token) } : {}),
      label: b.label,
    })),
  };
}

/** What a (network, token) is in the table, when it is a well-known asset's backing: "Tether's USDT on TRON". */
export function wellKnownAt(
  network: NetworkId,
  token: string | undefined,
): { asset: string; label: string } | undefined {
  for (const w of WELL_KNOWN)
    for (const b of wellKnownBackings(w.asset)?.backings ?? [])
      if (b.network === network && b.token === token) return { asset: w.asset, label: b.label };
  return undefined;
}
