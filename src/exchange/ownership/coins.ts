/**
 * The Bitcoin-family coins whose signed messages the exchanges' files carry: message magic and mainnet
 * address versions, by ticker. Sources: each coin's chainparams.cpp (base58 versions, bech32 prefix) and
 * its MessageHash magic (`strMessageMagic`). Dogecoin: 30 "D", 22 "9"/"A", "Dogecoin Signed Message:\n".
 *
 * floor-coins' coin table (src/chains/coins.ts, issue 36) is to hold these rows for every reader; until it is
 * on main this is the exchange readers' own short list.
 */
export interface UtxoCoin {
  ticker: string;
  name: string;
  magic: string;
  p2pkh: readonly number[];
  p2sh: readonly number[];
  hrp?: string;
}

const COINS: readonly UtxoCoin[] = [
  { ticker: "BTC", name: "Bitcoin", magic: "Bitcoin Signed Message:\n", p2pkh: [0], p2sh: [5], hrp: "bc" },
  {
    ticker: "LTC",
    name: "Litecoin",
    magic: "Litecoin Signed Message:\n",
    p2pkh: [48],
    p2sh: [50, 5],
    hrp: "ltc",
  },
  { ticker: "DOGE", name: "Dogecoin", magic: "Dogecoin Signed Message:\n", p2pkh: [30], p2sh: [22] },
];

/** The coin of a ticker ("BTC", "btc"), or undefined. */
export const utxoCoinOf = (ticker: string): UtxoCoin | undefined =>
  COINS.find((c) => c.ticker === ticker.toUpperCase());
