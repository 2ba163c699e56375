/**
 * Which network, and for a token which contract, an asset of a liabilities commitment is. `solvency` counts a
 * reserve proof for an asset only when the network its node re-derives (a UTXO chain's genesis block hash,
 * `getblockhash 0`; an EVM-style chain's `eth_chainId`) and the proof's contract are the asset's backing:
 * the auditor's `--backing ASSET=NETWORK[:TOKEN]`, else the well-known table below. Test networks are named
 * here so that `--backing` can use them, and never back an asset by default.
 */
import { MESSAGE_COINS, NETWORK_NAMES, type NetworkName } from "./coins.js";
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
  /** a UTXO network's coin's ticker (LTC, BTC) */
  ticker?: string;
}

const evmNet = (name: string, chainId: number, label: string, test: boolean): KnownNetwork => ({
  name,
  id: `evm:${chainId}`,
  label,
  test,
});

const NET_WORD: Record<NetworkName, string> = {
  main: "",
  test: "testnet",
  regtest: "regtest",
  signet: "signet",
};

/**
 * The UTXO networks, from the coin table (src/chains/coins.ts: genesis hashes as `getblockhash 0` prints them)
 * for the coins whose proofs chaingw verifies: "bitcoin", "litecoin-regtest", … A network whose genesis an
 * earlier one of the coin already has (Litecoin's signet runs testnet's) is named once.
 */
const UTXO_NETWORKS: KnownNetwork[] = MESSAGE_COINS.flatMap((coin) => {
  const seen = new Set<string>();
  return NETWORK_NAMES.flatMap((net) => {
    const params = coin.networks[net];
    if (!params || seen.has(params.genesis)) return [];
    seen.add(params.genesis);
    return [
      {
        name: net === "main" ? coin.id : `${coin.id}-${NET_WORD[net]}`,
        id: `utxo:${params.genesis}`,
        label: net === "main" ? coin.name : `${coin.name} ${NET_WORD[net]}`,
        test: net !== "main",
        ticker: coin.ticker,
      },
    ];
  });
});

/** Every network `--backing` names; EVM chain ids from each chain's own documentation (chainlist.org agrees). */
export const KNOWN_NETWORKS: readonly KnownNetwork[] = [
  ...UTXO_NETWORKS,
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
/** The network's own coin as a verdict names it: "LTC on Litecoin regtest", "the native coin of anvil (…)". */
export const nativeCoinLabel = (id: NetworkId): string => {
  const ticker = networkOf(id)?.ticker;
  if (ticker) return `${ticker} on ${networkLabel(id)}`;
  return `${id.startsWith("utxo:") ? "the coin" : "the native coin"} of ${networkLabel(id)}`;
};

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
