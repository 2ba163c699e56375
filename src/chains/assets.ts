/**
 * Which network, and for a token which contract, an asset of a liabilities commitment is. `solvency` counts a
 * reserve proof for an asset only when the network its node re-derives (a UTXO chain's genesis block hash,
 * `getblockhash 0`; an EVM-style chain's `eth_chainId`) and the proof's contract are the asset's backing:
 * the auditor's `--backing ASSET=NETWORK[:TOKEN]`, else the well-known table below. Test networks are named
 * here so that `--backing` can use them, and never back an asset by default.
 */
import { chainIdNetwork, type Network, type NetworkId, networks } from "./networks.js";
import { looksLikeTronBase58, tronToHex20 } from "./tron.js";

export type { NetworkId } from "./networks.js";
/** A network `--backing` names: a row of the one network table (src/chains/networks.ts). */
export type KnownNetwork = Network;

/**
 * Every network `--backing` names: the account chains, and the UTXO networks of the coins whose proofs
 * chaingw verifies ("bitcoin", "litecoin-regtest", …).
 */
export const KNOWN_NETWORKS: readonly KnownNetwork[] = networks().filter(
  (n) => !n.coin || n.coin.uses.messages,
);

/** One network and, for a token, one contract (0x + 40 lowercase hex) that back an asset. */
export interface BackingRef {
  network: NetworkId;
  /** undefined: the network's own coin */
  token?: string;
  /** how a verdict names it ("Tether's USDT on Ethereum") */
  label: string;
  /**
   * declared by chain id (`--backing A=evm:1:…`) for a network whose genesis the table knows: any node answering
   * that chain id, whatever its genesis, is it — the auditor's word, named as trusted (`trustedContracts`)
   */
  chainIdOnly?: true;
}

/** What backs one liabilities asset: the auditor's `--backing`, else the well-known table, else nothing. */
export interface AssetRule {
  refs: BackingRef[];
  source: "declared" | "well-known" | "none";
}

/**
 * The one identity rule of solvency, for chaingw's own proofs and an exchange's rows alike: the asset whose
 * rule has this (network, contract) — a well-known asset only at its known network and contract, any other
 * only where `--backing` declared it. undefined: it backs no asset owed. A node whose chain id is a known
 * network's but whose genesis is not (`accountNetworkId`: "evm:1/0x…") is not that network: the well-known
 * table and a network declared by name ("ethereum") never match it; one declared by chain id ("evm:1") does.
 */
export function assetAt(
  rules: ReadonlyMap<string, AssetRule>,
  network: NetworkId | null,
  token: string | undefined | null,
): { asset: string; ref: BackingRef } | undefined {
  if (network === null || token === null) return undefined;
  for (const [asset, rule] of rules) {
    const ref = rule.refs.find(
      (r) =>
        r.token === token &&
        (r.network === network || (r.chainIdOnly && r.network === chainIdNetwork(network))),
    );
    if (ref) return { asset, ref };
  }
  return undefined;
}

/** The declared contracts named in a verdict: "trusted as declared (--backing), not checked: …". */
export const trustedText = (trusted: readonly string[]): string =>
  `trusted as declared (--backing), not checked to be what they are declared: ${trusted.join("; ")}`;

/**
 * The declared tokens among the rules, each named as trusted: chaingw checks that a balance is held at the
 * contract, not what the contract is (who can mint it, what redeems it).
 */
export function trustedContracts(rules: ReadonlyMap<string, AssetRule>): string[] {
  return [...rules].flatMap(([asset, r]) =>
    r.source === "declared"
      ? r.refs.flatMap((x) =>
          x.token === undefined || (wellKnownAt(x.network, x.token) && !x.chainIdOnly)
            ? []
            : [`${x.label} as ${asset}`],
        )
      : [],
  );
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
  // the native coins of the mainnets that back one by default (the table's `backs`): "litecoin on Litecoin"
  ...KNOWN_NETWORKS.flatMap((n) =>
    n.backs
      ? [
          {
            asset: n.backs,
            decimals: n.native.decimals,
            backings: [{ network: n.name, label: `${n.native.name} on ${n.label}` }],
          },
        ]
      : [],
  ),
  {
    asset: "USDT",
    decimals: 6,
    backings: [
      {
        network: "ethereum",
        token: "0xdac17f958d2ee523a2206206994597c13d831ec7",
        label: "Tether's USDT on Ethereum",
      },
      {
        network: "tron-mainnet",
        token: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
        label: "Tether's USDT on TRON",
      },
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
      {
        network: "tron-mainnet",
        token: "TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8",
        label: "Circle's USDC on TRON",
      },
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

/** The assets the table backs by default, in its order. */
export const WELL_KNOWN_ASSETS: readonly string[] = WELL_KNOWN.map((w) => w.asset);

/** The network of a name or an older spelling of it ("tron" for tron-mainnet). */
export const networkNamed = (name: string): KnownNetwork | undefined =>
  KNOWN_NETWORKS.find((n) => n.name === name || n.aliases?.includes(name));

export const networkOf = (id: NetworkId): KnownNetwork | undefined => KNOWN_NETWORKS.find((n) => n.id === id);

/**
 * The networks (the table's names: "ethereum", "tron-mainnet") a devnet on their chain id stands in for in
 * this run: `--stand-in`, declared once where it is read (cli/nodes.ts standInsOf), so every label of such a
 * chain — the table, the text lines, --json, --html, CSV — names it a stand-in. Its id stays its own.
 */
let standingIn: ReadonlySet<string> = new Set();

/** Declares the run's `--stand-in` networks (`networkLabel` names their devnets so). */
export const declareStandIns = (names: ReadonlySet<string>): void => {
  standingIn = names;
};

/**
 * "Litecoin regtest", or the id itself for a network the table does not know ("evm:8453"); a node on a known
 * chain id whose genesis is another's: "chain id 1 (not Ethereum: its genesis block is 0x…)", or, declared
 * with --stand-in, "chain id 1 (a stand-in for Ethereum: its genesis block is 0x…; --stand-in)".
 */
export const networkLabel = (id: NetworkId): string => {
  const known = networkOf(id)?.label;
  if (known) return known;
  const base = chainIdNetwork(id);
  if (base === id) return id;
  const g = id.slice(base.length + 1);
  const of = networkOf(base);
  if (of && standingIn.has(of.name))
    return standInLabel(base.slice(4), of.label, g === "none" ? undefined : g);
  return `chain id ${base.slice(4)} (not ${of?.label ?? base}: ${g === "none" ? "it gave no genesis block" : `its genesis block is ${g}`})`;
};
/**
 * A devnet declared with --stand-in, as every verdict names it — the chain step, the block line, the nodes line,
 * the solvency findings, --json, --html, CSV: "chain id 1 (a stand-in for Ethereum: its genesis block is 0x…;
 * --stand-in)", the form of "chain id 1 (not Ethereum: …)" beside it. The one wording (`networkLabel` and the
 * node reader, reserves/evm/balances-read.ts readAccountNetwork, both give it).
 */
export const standInLabel = (chainId: bigint | string, of: string, genesis: string | undefined): string =>
  `chain id ${chainId} (a stand-in for ${of}: ${genesis === undefined ? "it gave no genesis block" : `its genesis block is ${genesis}`}; --stand-in)`;

/** The network's own coin as a verdict names it: "LTC on Litecoin regtest", "the native coin of anvil (…)". */
export const nativeCoinLabel = (id: NetworkId): string => {
  const n = networkOf(id);
  const ticker = n?.coin ? n.native.symbol : undefined;
  if (ticker) return `${ticker} on ${networkLabel(id)}`;
  return `${id.startsWith("utxo:") ? "the coin" : "the native coin"} of ${networkLabel(id)}`;
};

const tokenHexes = new Map<string, string>();

/** A token contract as the proofs hold it: 0x + 40 lowercase hex (a TRON T-address converted). */
export function tokenHex(t: string): string {
  // each contract converted once (a T-address's base58check is two SHA-256: an address file with nodes asked
  // it of the same TRC-20 for every TRON row, ~0.8 of tronBalance's 3.0 s profiled at 10,000 rows)
  const kept = tokenHexes.get(t);
  if (kept !== undefined) return kept;
  const hex = looksLikeTronBase58(t) ? tronToHex20(t) : t.toLowerCase();
  if (tokenHexes.size >= 4096) tokenHexes.clear();
  tokenHexes.set(t, hex);
  return hex;
}

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

/**
 * Contracts whose balanceOf is each address's native balance — the native coin seen through an ERC-20 door,
 * not a token of its own: Polygon's MRC20 at 0x…1010 (maticnetwork/genesis-contracts, MRC20.sol) and Celo's
 * GoldToken (celo-org/celo-monorepo, GoldToken.sol). Any other such contract is found by its balances
 * (src/liabilities/solvency.ts, `nativeMirrors`). Networks by their name in the table (src/chains/networks.ts).
 */
const NATIVE_MIRRORS: readonly { network: string; token: string; label: string }[] = [
  {
    network: "polygon",
    token: "0x0000000000000000000000000000000000001010",
    label: "Polygon's POL contract (MRC20)",
  },
  {
    network: "celo",
    token: "0x471ece3750da237f93b8e339c536989b8978a438",
    label: "Celo's CELO contract (GoldToken)",
  },
];

/** The known native mirror at (network, token), if it is one: how to name it. */
export const knownNativeMirror = (network: NetworkId, token: string): string | undefined =>
  NATIVE_MIRRORS.find((m) => networkNamed(m.network)?.id === network && m.token === token)?.label;
