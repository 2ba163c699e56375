/**
 * The Bitcoin-family coins of the exchanges' files, read from the one coin table (src/chains/coins.ts):
 * the row's message magic and its mainnet address versions, found by ticker ("BTC", "DOGE").
 */
import { COINS, type NetworkName } from "../../chains/coins.js";

export interface UtxoCoin {
  ticker: string;
  name: string;
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
    magic: c.magic,
    decimals: c.decimals,
    p2pkh: [main.base58.p2pkh],
    p2sh: main.base58.p2sh,
    ...(main.hrp ? { hrp: main.hrp } : {}),
    ...(main.cashaddr ? { cashaddr: main.cashaddr } : {}),
  };
}
