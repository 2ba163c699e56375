/**
 * The Bitcoin-family coins of the exchanges' files, read from the one coin table (src/chains/coins.ts):
 * the row's message magic and its mainnet address versions, found by ticker ("BTC", "DOGE").
 */
import { networkOf, wellKnownBackings } from "../../chains/assets.js";
import { COINS, coinNetworkLabel, type NetworkName } from "../../chains/coins.js";

export interface UtxoCoin {
  ticker: string;
  name: string;
  /** the coin's network as messages name it: "Bitcoin", "Litecoin regtest" */
  label: string;
  magic: string;
  decimals: number;
  p2pkh: readonly number[];
  p2sh: readonly number[];
  hrp?: string;
  /** the coin's own address form is CashAddr (Bitcoin Cash), which this reader does not decode */
  cashaddr?: string;
}

/**
 * The coin of a ticker ("BTC", "btc") on `network` (exchanges publish mainnet addresses; `--network regtest`
 * reads a file of a test network), or undefined.
 */
export function utxoCoinOf(ticker: string, network: NetworkName = "main"): UtxoCoin | undefined {
  const c = COINS.find((x) => x.ticker === ticker.toUpperCase());
  const main = c?.networks[network];
  if (!c || !main) return undefined;
  return {
    ticker: c.ticker,
    name: c.name,
    label: coinNetworkLabel(c, network),
    magic: c.magic,
    decimals: c.decimals,
    p2pkh: [main.base58.p2pkh],
    p2sh: main.base58.p2sh,
    ...(main.hrp ? { hrp: main.hrp } : {}),
    ...(main.cashaddr ? { cashaddr: main.cashaddr } : {}),
  };
}

/** The names files give TRON: a network column ("TRON"), a coin ("TRX"), a token's standard ("USDT-TRC20"). */
const TRON_NAMES: readonly string[] = ["TRON", "TRX", "TRC20"];

/** Whether a file's network (or coin) name is TRON's, in any case. */
export const isTronNetwork = (name: string): boolean => TRON_NAMES.includes(name.toUpperCase());

/** The account chains' native coins, with the networks a file names them on (18 places, TRX 6). */
const NATIVES: readonly { ticker: string; decimals: number; networks: readonly string[] }[] = [
  {
    ticker: "ETH",
    decimals: 18,
    networks: ["ETH", "ERC20", "ARBITRUM", "OPTIMISM", "BASE", "LINEA", "ZKSYNC", "ZKSYNC ERA", "STARKNET"],
  },
  { ticker: "TRX", decimals: 6, networks: TRON_NAMES },
  { ticker: "BNB", decimals: 18, networks: ["BSC", "BEP20", "BNB"] },
  { ticker: "POL", decimals: 18, networks: ["POLYGON", "POLY", "MATIC"] },
  { ticker: "MATIC", decimals: 18, networks: ["POLYGON", "POLY", "MATIC"] },
  { ticker: "AVAX", decimals: 18, networks: ["AVAXC", "AVAX", "AVALANCHE"] },
];

/**
 * Whether `ticker` is `network`'s own coin (read by eth_getBalance there): true or false where the natives'
 * table knows the coin or the network ("BNB" on "ETH": false), undefined where it knows neither.
 */
export function nativeOn(ticker: string, network: string): boolean | undefined {
  const t = ticker.toUpperCase();
  const net = network.toUpperCase();
  const mine = NATIVES.filter((n) => n.ticker === t);
  if (mine.length) return mine.some((n) => n.networks.includes(net));
  return NATIVES.some((n) => n.networks.includes(net)) ? false : undefined;
}

/** The networks of the well-known tokens' table (src/chains/assets.ts) as files name them. */
const TOKEN_NETWORKS: Record<string, readonly string[]> = {
  ethereum: ["ETH", "ERC20"],
  "tron-mainnet": ["TRON", "TRC20"],
};

/**
 * The decimal places of a row's coin on its network ("" when the file gives none: the coin's own chain), or
 * undefined when chaingw's tables do not know it: the Bitcoin-family coin table, the account chains' natives,
 * and the well-known tokens of src/chains/assets.ts on the networks that table names (USDT on BSC has 18
 * places, on Ethereum 6: a token is known only where its contract is).
 */
export function decimalsOf(coin: string, network: string): number | undefined {
  const ticker = (coin.split("-")[0] as string).toUpperCase();
  const net = network.toUpperCase();
  const utxo = COINS.find((x) => x.ticker === ticker);
  if (utxo && (net === "" || net === ticker)) return utxo.decimals;
  const native = NATIVES.find((n) => n.ticker === ticker);
  if (native && (net === "" || native.networks.includes(net))) return native.decimals;
  const known = wellKnownBackings(ticker);
  if (known?.backings.some((b) => b.token && TOKEN_NETWORKS[networkOf(b.network)?.name ?? ""]?.includes(net)))
    return known.decimals;
  return undefined;
}
