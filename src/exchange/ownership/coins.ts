/**
 * What the coin and network names of the exchanges' files mean, read from the tables: a Bitcoin-family coin
 * (the coin table, src/chains/coins.ts: its message magic and address versions, found by ticker, "BTC"), and
 * a chain's names (`EXCHANGE_CHAINS`, one entry per chain: every spelling, its kind, its native coins; a
 * mainnet account chain's from the network table's `exchangeNames`, src/chains/networks.ts), the networks a
 * native coin is native on and a row's decimal places (the well-known tokens' too).
 */
import { networkNamed, networkOf, wellKnownBackings } from "../../chains/assets.js";
import { COINS, coinNetworkLabel, type NetworkName } from "../../chains/coins.js";
import { type Native, type Network, networks } from "../../chains/networks.js";
import { amountText, parseUnits } from "../../util/units.js";

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

/**
 * What kind of chain a name is, by the addresses and signatures its rows carry: "hex" an EVM chain's (0x and
 * 40 hex digits, secp256k1), "tron" TRON's, "ed25519" a chain whose address derives from an ed25519 key,
 * "bitcoin" Bitcoin's outputs (Omni Layer tokens), "other" none chaingw judges.
 */
export type ChainKind = "hex" | "tron" | "ed25519" | "bitcoin" | "other";

/** The kind of a network table row's chain, by its group (the EVM-compat group's rows are TRON's). */
const KIND_OF_GROUP: Record<NonNullable<Network["group"]>, ChainKind> = { evm: "hex", "evm-compat": "tron" };

/** A chain as exchanges' files name it: a network column ("BSC"), a token's standard ("USDT-BEP20"), a coin. */
export interface ExchangeChain {
  /** the one key its spellings fold to: its first spelling ("ERC20" and "ETH" are "ETH") */
  key: string;
  /** every spelling files use, upper case */
  names: readonly string[];
  kind: ChainKind;
  /** its own coins (a ticker and the tickers it had before) with their decimal places, where known */
  natives: readonly { symbol: string; decimals: number }[];
  /** its row in the network table (src/chains/networks.ts), where chaingw has one */
  network?: string;
  /** an EVM chain without a row: its chain id (EIP-155), which its node must answer */
  chainId?: number;
}

/** The ed25519 chains whose address chaingw derives from a public key (src/exchange/ownership/signatures.ts). */
export type Ed25519Net = "SOL" | "DOT" | "KSM" | "ADA" | "APTOS" | "SUI" | "ALGO" | "TON";

const ETHER = networkNamed("ethereum")?.native as Native;
/** OKC's, HECO's, Fantom's and Ethereum Classic's coins, read with eth_getBalance (18 places) */
const coin18 = (symbol: string) => [{ symbol, decimals: 18 }];
const ed25519 = (key: Ed25519Net, ...more: string[]): Omit<ExchangeChain, "natives"> => ({
  key,
  names: [key, ...more],
  kind: "ed25519",
});

/**
 * The chains the network table has no row for (chaingw reads none of them), as the files spell them (the
 * network cells of OKX's and HTX's real files, test/fixtures/exchange/ownership; and the names chaingw's
 * readers knew before this table): their kind, and their own coin where chaingw knows it.
 */
const ROWLESS_CHAINS: readonly ExchangeChain[] = [
  // chain ids: Linea 59144, zkSync Era 324, OKTC 66, HECO 128, BTTC 199, Fantom 250, Ethereum Classic 61
  // (chainlist.org); "ZKSYNC" alone may be zkSync Lite, which is no EVM chain: no id
  { key: "LINEA", names: ["LINEA"], chainId: 59144, kind: "hex", natives: [ETHER] },
  { key: "ZKSYNC", names: ["ZKSYNC"], kind: "hex", natives: [ETHER] },
  { key: "ZKSYNC ERA", names: ["ZKSYNC ERA"], chainId: 324, kind: "hex", natives: [ETHER] },
  // its 0x addresses are 64 hex digits, its signatures the Stark curve's: not an EVM chain ("other": a 0x
  // address on it is not a malformed EVM one)
  { key: "STARKNET", names: ["STARKNET"], kind: "other", natives: [ETHER] },
  { key: "OKC", names: ["OKC"], chainId: 66, kind: "hex", natives: coin18("OKT") },
  { key: "HECO", names: ["HECO"], chainId: 128, kind: "hex", natives: coin18("HT") },
  { key: "BTTC", names: ["BTTC"], chainId: 199, kind: "hex", natives: [] },
  { key: "FTM", names: ["FTM", "FANTOM"], chainId: 250, kind: "hex", natives: coin18("FTM") },
  { key: "ETC", names: ["ETC"], chainId: 61, kind: "hex", natives: coin18("ETC") },
  // EOS, renamed Vaulta in 2025: accounts whose keys are on chain, EOS-style SIG_K1 signatures
  { key: "VAULTA", names: ["VAULTA"], kind: "other", natives: [] },
  // Omni Layer tokens ("USDT-OMNI") live on Bitcoin's outputs
  { key: "OMNI", names: ["OMNI"], kind: "bitcoin", natives: [] },
  ...[
    ed25519("SOL", "SOLANA"),
    ed25519("DOT", "POLKADOT"),
    ed25519("KSM", "KUSAMA"),
    ed25519("ADA", "CARDANO"),
    ed25519("APTOS", "APT"),
    ed25519("SUI"),
    ed25519("ALGO", "ALGORAND"),
    ed25519("TON"),
  ].map((c) => ({ ...c, natives: [] })),
];

/**
 * Every chain name exchanges' files use, one entry per chain: the network table's mainnet account chains
 * (their `exchangeNames`, their native coin with its former tickers) and ROWLESS_CHAINS. Which names are EVM
 * chains (judge.ts), which parts of a coin cell are chains' names (solvency.ts `tickerOf`), which spellings are
 * one chain (verify.ts), which coins are read with eth_getBalance (balances.ts), TRON's and the ed25519 chains'
 * names (judge.ts, signatures.ts) are all read from here.
 */
export const EXCHANGE_CHAINS: readonly ExchangeChain[] = [
  ...networks().flatMap((n): ExchangeChain[] =>
    n.exchangeNames && n.group
      ? [
          {
            key: n.exchangeNames[0] as string,
            names: n.exchangeNames,
            kind: KIND_OF_GROUP[n.group],
            natives: [n.native.symbol, ...(n.native.formerSymbols ?? [])].map((symbol) => ({
              symbol,
              decimals: n.native.decimals,
            })),
            network: n.name,
          },
        ]
      : [],
  ),
  ...ROWLESS_CHAINS,
];

const BY_NAME = new Map(EXCHANGE_CHAINS.flatMap((c) => c.names.map((name) => [name, c] as const)));

/** The chain a file's name ("bep20", "Avalanche C-Chain") is, in any case; undefined for a name no entry has. */
export const exchangeChainOf = (name: string): ExchangeChain | undefined => BY_NAME.get(name.toUpperCase());

/** Whether a file's network (or coin) name is TRON's, in any case. */
export const isTronNetwork = (name: string): boolean => exchangeChainOf(name)?.kind === "tron";

/** The ed25519 chain a file's name is ("SOLANA" → SOL), in any case. */
export const ed25519NetOf = (name: string): Ed25519Net | undefined => {
  const c = exchangeChainOf(name);
  return c?.kind === "ed25519" ? (c.key as Ed25519Net) : undefined;
};

/**
 * The account chains' native coins (each ticker, and the tickers it had before), with the names of the
 * networks a file names them on.
 */
const NATIVES: readonly { ticker: string; decimals: number; networks: readonly string[] }[] = [
  ...new Set(EXCHANGE_CHAINS.flatMap((c) => c.natives.map((n) => n.symbol))),
].map((ticker) => {
  const on = EXCHANGE_CHAINS.filter((c) => c.natives.some((n) => n.symbol === ticker));
  return {
    ticker,
    decimals: on[0]?.natives.find((n) => n.symbol === ticker)?.decimals as number,
    networks: on.flatMap((c) => c.names),
  };
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
  // the tables never change: each coin and network looked up once (a TRON token's took ~14 µs a row, every
  // well-known backing's contract decoded again, four times a row between the reader, the steps and the report)
  const key = `${coin}\u0000${network}`;
  if (decimalsKept.has(key)) return decimalsKept.get(key);
  if (decimalsKept.size >= 4096) decimalsKept.clear();
  const d = decimalsLooked(coin, network);
  decimalsKept.set(key, d);
  return d;
}

const decimalsKept = new Map<string, number | undefined>();

function decimalsLooked(coin: string, network: string): number | undefined {
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

/**
 * The places a row's base units (a file of base units, OKX 2022) are in: the ones the chain gave the amount it
 * re-read (a token's decimals() at the block: a contract declared with --token is the chain's word, not the
 * table's), else the coin's from chaingw's tables (`decimalsOf`); undefined: neither tells.
 */
export const basePlacesOf = (
  row: { coin: string; network: string },
  read: { balance?: { decimals?: number } } | undefined,
): number | undefined => read?.balance?.decimals ?? decimalsOf(row.coin, row.network);

/**
 * The chain a `--node NET=URL`'s node must be on for the rows of NET: a Bitcoin-family coin's network on
 * `network` (its genesis), a chain's network table row (its chain id), a rowless EVM chain's id; undefined
 * where chaingw does not know which chain the name is (LINEA's id is known, STARKNET's is none).
 */
export function expectedNetworkOf(
  net: string,
  network: NetworkName = "main",
): { id: string; label: string } | undefined {
  const coin = COINS.find((x) => x.ticker === net.toUpperCase());
  if (coin) {
    const g = coin.networks[network]?.genesis;
    return g ? { id: `utxo:${g}`, label: coinNetworkLabel(coin, network) } : undefined;
  }
  const c = exchangeChainOf(net);
  const row = c?.network === undefined ? undefined : networkNamed(c.network);
  if (row) return { id: row.id, label: row.label };
  return c?.chainId === undefined
    ? undefined
    : { id: `evm:${c.chainId}`, label: `${c.key} (chain id ${c.chainId})` };
}

/**
 * A row's amount the one way, in two fields: `amount` in coin units with the coin's decimals, `base_units` the
 * integer; each empty where it cannot be told (a file of base units whose coin's places chaingw does not know).
 * `places`: the places the amount is counted in where the chain told them (basePlacesOf), else the coin's.
 */
export function rowAmounts(
  amount: string,
  units: "base" | "coin" | "none",
  coin: string,
  network: string,
  places: number | undefined = decimalsOf(coin, network),
): { amount: string; base_units: string } {
  const d = places;
  if (units === "base")
    return {
      amount: d === undefined || !/^\d+$/.test(amount) ? "" : amountText(BigInt(amount), d),
      base_units: amount,
    };
  if (d === undefined) return { amount, base_units: "" };
  try {
    // parsed once (amountOf of a plain decimal is this amountText; a sign or other text throws here and there)
    const b = parseUnits(amount, d);
    return { amount: amountText(b, d), base_units: b.toString() };
  } catch {
    return { amount, base_units: "" };
  }
}
