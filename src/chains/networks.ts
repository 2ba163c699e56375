/**
 * Every network chaingw knows, one row each: a UTXO network by its genesis block hash (`getblockhash 0`),
 * an account chain (EVM, TRON's JSON-RPC) by its chain id (`eth_chainId`). A row has the one name proofs
 * and `--backing` use, the label verdicts print, whether it is a test network, and its native coin. The EVM
 * and TRON groups' chain-id lookups, solvency's networks (src/chains/assets.ts) and the default backings of
 * the native assets are read from here, and so are the names exchanges' address files give a mainnet account
 * chain ("BSC", "ERC20") with its native coin; the UTXO rows come from the coin table (src/chains/coins.ts).
 *
 * Adding an account chain: one row of ACCOUNT_NETWORKS (its chain id from the chain's own documentation;
 * chainlist.org agrees for every row below). Adding a UTXO network: its coin's row in coins.ts.
 */
import { COINS, type Coin, coinNetworkLabel, type NetworkName, networkWord } from "./coins.js";

/** A network as solvency identifies it: "utxo:<genesis block hash>" or "evm:<chain id>". */
export type NetworkId = string;

export interface Network {
  /** the one name: an EVM proof's `chain.network`, what `--backing` takes */
  name: string;
  /** older spellings a person may still type (`--backing`); never written */
  aliases?: readonly string[];
  id: NetworkId;
  /** how a verdict names it: "Litecoin regtest", "TRON Nile" */
  label: string;
  /** a test network: never backs an asset unless the auditor declares it */
  test: boolean;
  /** the network's own coin: its ticker, decimals, and how a verdict names the coin ("ether") */
  native: Native;
  /** the asset its native coin backs when the auditor names none (mainnets of well-known coins) */
  backs?: string;
  /** a UTXO network's coin row and network key */
  coin?: Coin;
  coinNetwork?: NetworkName;
  /** an account chain's group: the chain-id lookup of that group finds only its own rows */
  group?: "evm" | "evm-compat";
  /**
   * an account chain's genesis block hash (eth_getBlockByNumber("0x0"), 0x + 64 lowercase hex), where a node
   * must show it to be this network (`accountNetworkId`): a chain id alone is a number any node can answer
   */
  genesis?: string;
  /**
   * the names exchanges' address files give this chain, upper case: a network column ("BSC"), a token's
   * standard ("USDT-BEP20"), the coin itself ("BNB") — mainnets only (src/exchange/ownership/coins.ts)
   */
  exchangeNames?: readonly string[];
}

export interface Native {
  symbol: string;
  decimals: number;
  name: string;
  /** tickers the coin had before, which exchanges' files still use ("MATIC", POL's until 2024) */
  formerSymbols?: readonly string[];
}

const ETH = { symbol: "ETH", decimals: 18, name: "ether" } as const;
const TRX = { symbol: "TRX", decimals: 6, name: "TRX" } as const;
const BNB = { symbol: "BNB", decimals: 18, name: "BNB" } as const;
const POL = { symbol: "POL", decimals: 18, name: "POL", formerSymbols: ["MATIC"] } as const;
const AVAX = { symbol: "AVAX", decimals: 18, name: "AVAX" } as const;
const CELO = { symbol: "CELO", decimals: 18, name: "CELO" } as const;

interface AccountRow {
  name: string;
  aliases?: readonly string[];
  chainId: number;
  label: string;
  test: boolean;
  native: Native;
  backs?: string;
  group: "evm" | "evm-compat";
  exchangeNames?: readonly string[];
  genesis?: string;
}

/** The account chains: EVM chain ids (EIP-155) and TRON's (the last 4 bytes of each genesis block id). */
const ACCOUNT_NETWORKS: readonly AccountRow[] = [
  {
    name: "ethereum",
    chainId: 1,
    label: "Ethereum",
    test: false,
    native: ETH,
    backs: "ETH",
    group: "evm",
    exchangeNames: ["ETH", "ERC20"],
    // go-ethereum params/config.go MainnetGenesisHash; Etherscan's block 0
    genesis: "0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3",
  },
  {
    name: "optimism",
    chainId: 10,
    label: "OP Mainnet",
    test: false,
    native: ETH,
    group: "evm",
    exchangeNames: ["OPTIMISM"],
    // op-geth / erigon OPMainnetGenesisHash (the legacy chain's block 0, which op-geth serves)
    genesis: "0x7ca38a1916c42007829c55e69d3e9a73265554b586a499015373241b8a3fa48b",
  },
  {
    name: "bnb-smart-chain",
    chainId: 56,
    label: "BNB Smart Chain",
    test: false,
    native: BNB,
    group: "evm",
    exchangeNames: ["BSC", "BEP20", "BNB"],
    // bnb-chain/bsc params/config.go BSCGenesisHash
    genesis: "0x0d21840abff46b96c84b2ac9e10e4f5cdaeb5693cb665db62a2f3b02d2d57b5b",
  },
  {
    name: "polygon",
    chainId: 137,
    label: "Polygon",
    test: false,
    native: POL,
    group: "evm",
    exchangeNames: ["POLYGON", "POLY", "MATIC"],
    // foundry cast's chain table ("polygon"); Polygon PoS (bor) mainnet's block 0
    genesis: "0xa9c28ce2141b56c474f1dc504bee9b01eb1bd7d1a507580d5519d4437a97de1b",
  },
  {
    name: "base",
    chainId: 8453,
    label: "Base",
    test: false,
    native: ETH,
    group: "evm",
    exchangeNames: ["BASE"],
    // reth's BASE_MAINNET genesis_hash
    genesis: "0xf712aa9241cc24369b143cf6dce85f0902a9731e70d66818a3a5845b296c73dd",
  },
  {
    name: "arbitrum-one",
    chainId: 42161,
    label: "Arbitrum One",
    test: false,
    native: ETH,
    group: "evm",
    exchangeNames: ["ARBITRUM"],
    // foundry cast's chain table ("arbitrum-mainnet"); the classic chain's block 0, which Nitro serves
    genesis: "0x7ee576b35482195fc49205cec9af72ce14f003b9ae69f6ba0faef4514be8b442",
  },
  { name: "celo", chainId: 42220, label: "Celo", test: false, native: CELO, group: "evm" },
  {
    name: "avalanche-c",
    chainId: 43114,
    label: "Avalanche C-Chain",
    test: false,
    native: AVAX,
    group: "evm",
    exchangeNames: ["AVAXC", "AVAX", "AVALANCHE", "AVALANCHE C-CHAIN"],
    // ava-labs coreth (mainnet and Fuji share it; their chain ids differ)
    genesis: "0x31ced5b9beb7f8782b014660da0cb18cc409f121f408186886e1ca3e8eeca96b",
  },
  {
    name: "holesky",
    chainId: 17000,
    label: "Ethereum Holesky",
    test: true,
    native: ETH,
    group: "evm",
    // go-ethereum params/config.go HoleskyGenesisHash
    genesis: "0xb5f7f912443c940f21fd611f12828d75b534364ed9e95ca4e307729a4661bde4",
  },
  {
    name: "sepolia",
    chainId: 11155111,
    label: "Ethereum Sepolia",
    test: true,
    native: ETH,
    group: "evm",
    // go-ethereum params/config.go SepoliaGenesisHash
    genesis: "0x25a5cc106eea7138acab33231d7160d69cb777ee0c2c553fcddf5138993e6dd9",
  },
  { name: "anvil", chainId: 31337, label: "anvil (chain id 31337)", test: true, native: ETH, group: "evm" },
  {
    name: "tron-mainnet",
    // `--backing` took "tron" before the one table; proofs always said "tron-mainnet"
    aliases: ["tron"],
    chainId: 728126428,
    label: "TRON",
    test: false,
    native: TRX,
    backs: "TRX",
    group: "evm-compat",
    // ChainAgnostic/namespaces tron/caip2.md ("Genesis Block Hash Format", the chain id its last 4 bytes,
    // TIP-474); java-tron's wallet/getblockbynum {"num":0} blockID
    genesis: "0x00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc",
    // a network column ("TRON"), the coin ("TRX"), a token's standard ("USDT-TRC20")
    exchangeNames: ["TRON", "TRX", "TRC20"],
  },
  {
    name: "tron-nile",
    chainId: 3448148188,
    label: "TRON Nile",
    test: true,
    native: TRX,
    group: "evm-compat",
  },
  {
    name: "tron-shasta",
    chainId: 2494104990,
    label: "TRON Shasta",
    test: true,
    native: TRX,
    group: "evm-compat",
  },
];

/** The account chain `group` names `chainId` (decimal), or undefined. */
export function accountNetwork(
  group: "evm" | "evm-compat",
  chainId: bigint,
): { name: string; symbol: string } | undefined {
  const id = Number(chainId);
  const row = ACCOUNT_NETWORKS.find((r) => r.chainId === id && r.group === group);
  return row && BigInt(row.chainId) === chainId ? { name: row.name, symbol: row.native.symbol } : undefined;
}

/**
 * The genesis block hash a node must show (eth_getBlockByNumber("0x0")) to be the table's network `name`
 * (Ethereum, TRON, BNB Smart Chain, …), or undefined where the table knows none (anvil, Celo, TRON's test
 * networks, a chain of no row): such a network is known by its chain id alone.
 */
export const genesisOfNetwork = (name: string): string | undefined =>
  ACCOUNT_NETWORKS.find((r) => r.name === name)?.genesis;

/** The account networks whose genesis the table knows, by name: the ones a devnet can stand in for (--stand-in). */
export const GENESIS_KNOWN: readonly string[] = ACCOUNT_NETWORKS.filter((r) => r.genesis !== undefined).map(
  (r) => r.name,
);

/**
 * The network an account chain's node of chain id `chainId` is on, as solvency identifies it, where the table
 * names that id `name` and knows its genesis: "evm:<chain id>" when the node's genesis (`genesis`) is it, else
 * "evm:<chain id>/<its genesis>" — not that network: an anvil started with `--chain-id 1` is not Ethereum,
 * and a contract set at Tether's address there is not Tether's USDT.
 */
export function accountNetworkId(chainId: bigint, name: string, genesis: string | undefined): NetworkId {
  const g = genesis?.toLowerCase();
  return g === genesisOfNetwork(name) ? `evm:${chainId}` : `evm:${chainId}/${g ?? "none"}`;
}

/** The chain-id network of an id ("evm:1" for "evm:1/0x…", a chain id 1 that is not Ethereum); else the id. */
export const chainIdNetwork = (id: NetworkId): NetworkId =>
  id.startsWith("evm:") ? (id.split("/")[0] as string) : id;

/**
 * The UTXO networks of the coin table: "bitcoin", "litecoin-regtest", "dogecoin-testnet"… A network whose
 * genesis an earlier one of the same coin already has (Litecoin's signet runs testnet's) is named once.
 * Bitcoin Cash's rows share Bitcoin's genesis hashes: the user-agent tells those apart, not the id.
 */
function utxoNetworks(): Network[] {
  return COINS.flatMap((coin) => {
    const seen = new Set<string>();
    return Object.entries(coin.networks).flatMap(([net, params]) => {
      if (!params || seen.has(params.genesis)) return [];
      seen.add(params.genesis);
      const main = net === "main";
      return [
        {
          name: main ? coin.id : `${coin.id}-${networkWord(net as NetworkName)}`,
          id: `utxo:${params.genesis}`,
          label: coinNetworkLabel(coin, net as NetworkName),
          test: !main,
          native: { symbol: coin.ticker, decimals: coin.decimals, name: coin.id },
          ...(main && coin.uses.messages ? { backs: coin.ticker } : {}),
          coin,
          coinNetwork: net as NetworkName,
        },
      ];
    });
  });
}

let all: readonly Network[] | undefined;
/** Every network of the table: the coin table's UTXO networks in its order, then the account chains. */
export function networks(): readonly Network[] {
  all ??= [
    ...utxoNetworks(),
    ...ACCOUNT_NETWORKS.map(({ chainId, ...r }): Network => ({ ...r, id: `evm:${chainId}` })),
  ];
  return all;
}
