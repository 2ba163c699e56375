/**
 * What the coin and network names of the exchanges' files mean, read from the tables: a Bitcoin-family coin
 * (the coin table, src/chains/coins.ts: its message magic and address versions, found by ticker, "BTC"), and
 * an account chain's names, native coin and the well-known tokens on it (the network table's `exchangeNames`,
 * src/chains/networks.ts).
 */
import { networkNamed, networkOf, wellKnownBackings } from "../../chains/assets.js";
import { COINS, coinNetworkLabel, type NetworkName } from "../../chains/coins.js";
import { networks } from "../../chains/networks.js";

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

/** The mainnet account chains the network table (src/chains/networks.ts) knows by the names files give them. */
const NAMED_CHAINS = networks().filter((n) => n.exchangeNames);

/** The names files give TRON: a network column ("TRON"), a coin ("TRX"), a token's standard ("TRC20"). */
const TRON_NAMES: readonly string[] = networkNamed("tron-mainnet")?.exchangeNames ?? [];

/** Whether a file's network (or coin) name is TRON's, in any case. */
export const isTronNetwork = (name: string): boolean => TRON_NAMES.includes(name.toUpperCase());

/** Chains whose own coin is ether that the network table has no row for (chaingw reads none), as files name them. */
const OTHER_ETHER_CHAINS: readonly string[] = ["LINEA", "ZKSYNC", "ZKSYNC ERA", "STARKNET"];

/**
 * The account chains' native coins (each ticker, and the tickers it had before), with the names of the networks
 * a file names them on: the network table's rows, ether's also on OTHER_ETHER_CHAINS.
 */
const NATIVES: readonly { ticker: string; decimals: number; networks: readonly string[] }[] = [
  ...new Set(NAMED_CHAINS.map((n) => n.native)),
].flatMap((native) => {
  const on = NAMED_CHAINS.filter((n) => n.native === native).flatMap((n) => n.exchangeNames ?? []);
  const networks = native.symbol === "ETH" ? [...on, ...OTHER_ETHER_CHAINS] : on;
  return [native.symbol, ...(native.formerSymbols ?? [])].map((ticker) => ({
    ticker,
    decimals: native.decimals,
    networks,
  }));
});

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

/**
 * The decimal places of a row's coin on its network ("" when the file gives none: the coin's own chain), or
 * undefined when chaingw's tables do not know it: the Bitcoin-family coin table, the account chains' natives,
 * and the well-known tokens of src/chains/assets.ts on the names files give their networks (USDT on BSC has 18
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
  if (known?.backings.some((b) => b.token && networkOf(b.network)?.exchangeNames?.includes(net)))
    return known.decimals;
  return undefined;
}
