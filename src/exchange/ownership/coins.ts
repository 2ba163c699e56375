/**
 * The Bitcoin-family coins of the exchanges' files, read from the one coin table (src/chains/coins.ts):
 * the row's message magic and its mainnet address versions, found by ticker ("BTC", "DOGE").
 */
import { COINS } from "../../chains/coins.js";

export interface UtxoCoin {
  ticker: string;
  name: string;
  magic: string;
  p2pkh: readonly number[];
  p2sh: readonly number[];
  hrp?: string;
  /** the coin's own address form is CashAddr (Bitcoin Cash), which this reader does not decode */
  cashaddr?: string;
}

/** The mainnet coin of a ticker ("BTC", "btc"), or undefined. */
export function utxoCoinOf(ticker: string): UtxoCoin | undefined {
  const c = COINS.find((x) => x.ticker === ticker.toUpperCase());
  const main = c?.networks.main;
  if (!c || !main) return undefined;
  return {
    ticker: c.ticker,
    name: c.name,
    magic: c.magic,
    p2pkh: [main.base58.p2pkh],
    p2sh: main.base58.p2sh,
    ...(main.hrp ? { hrp: main.hrp } : {}),
    ...(main.cashaddr ? { cashaddr: main.cashaddr } : {}),
  };
}
