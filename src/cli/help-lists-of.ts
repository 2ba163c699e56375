/**
 * The lists that help texts name, read from the tables: the coins whose messages chaingw verifies, the
 * networks of the local nodes `--network` finds, the networks `--backing` takes, the well-known assets, the exchanges whose files the format registry reads. Run at build time only (scripts/gen-help.mjs writes
 * them into src/cli/help-lists.ts as plain strings): declaring the command tree loads no table for them.
 * test/help-lists.test.ts fails when the written file and the tables part.
 */
import { KNOWN_NETWORKS, WELL_KNOWN_ASSETS } from "../chains/assets.js";
import { COINS, type Coin, sentenceList } from "../chains/coins.js";
import { localHomes, localNetworks, localNodeNames } from "../config/node-layout.js";
import { ZK_FORMATS } from "../formats/binance.js";
import { EXCHANGE_OWNERSHIP } from "../formats/exchange-ownership.js";
import { formatsOf, type ProofFormat } from "../formats/registry.js";

/**
 * The publisher a format's title names first ("OKX customer inclusion proof, v1" → "OKX", "BitMEX / River full
 * liabilities tree" → "BitMEX / River"): a descriptor's title starts with whose file it reads.
 */
export const publisherOf = (f: ProofFormat): string =>
  /^(.+?) (?:customer|zk-SNARK|full|address|reserve)\b/.exec(f.title)?.[1] ?? f.title;

/** The publishers of some formats, each once, in the registry's order. */
const publishers = (formats: readonly ProofFormat[]): string[] => [
  ...new Set(formats.filter((f) => !f.name.startsWith("chaingw")).map(publisherOf)),
];

/** The lists, from the tables (`coins`: the coin table, a test's own rows). */
export function helpListsOf(coins: readonly Coin[] = COINS): Record<string, string> {
  const messageCoins = coins.filter((c) => c.uses.messages);
  return {
    /** "Bitcoin or Litecoin" */
    MESSAGE_COINS: sentenceList(messageCoins.map((c) => c.name)),
    /** "Bitcoin/Litecoin" */
    MESSAGE_COINS_SLASH: messageCoins.map((c) => c.name).join("/"),
    /** their ids, as `reserves sign-help --coin` takes them: "bitcoin, litecoin, dogecoin" */
    MESSAGE_COIN_IDS: messageCoins.map((c) => c.id).join(", "),
    /** what `--network` takes: every network of a coin whose local node chaingw finds, "main, test, regtest or signet" */
    LOCAL_NETWORKS: sentenceList(localNetworks(coins)),
    /** the same as a list: "main, test, regtest, signet" (`config init`'s starter file) */
    LOCAL_NETWORK_NAMES: localNetworks(coins).join(", "),
    /** the local nodes `--network` finds: "Bitcoin Core, Litecoin Core, Dogecoin Core" */
    LOCAL_NODES: localNodeNames(coins).join(", "),
    /** where it looks without --datadir: "~/.bitcoin, else ~/.litecoin, else ~/.dogecoin" */
    LOCAL_HOMES: localHomes(coins),
    /** every name `--backing` takes, in the table's order */
    BACKING_NETWORKS: KNOWN_NETWORKS.map((n) => n.name).join(", "),
    /** the older spellings it still takes */
    BACKING_ALIASES: sentenceList(KNOWN_NETWORKS.flatMap((n) => n.aliases ?? [])),
    /** "BTC, LTC, ETH, TRX, USDT, USDC, DAI" */
    WELL_KNOWN_ASSETS: WELL_KNOWN_ASSETS.join(", "),
    /** the exchanges whose customers' inclusion proofs `liabilities verify` reads */
    LIABILITIES_PUBLISHERS: publishers(formatsOf("liabilities")).join(", "),
    /** the exchanges of the zk-SNARK inclusion proofs, which `--asset-slots` is for: "Binance/Gate/HTX" */
    ZK_PUBLISHERS: publishers(ZK_FORMATS).join("/"),
    /** the exchanges whose address/signature files `reserves verify` reads */
    OWNERSHIP_PUBLISHERS: publishers(EXCHANGE_OWNERSHIP).join(", "),
    /** `reserves verify --proof-format`'s names: chaingw's own, then the exchanges' address-file layouts */
    RESERVES_FORMATS: formatsOf("reserves")
      .filter((f) => f.name.startsWith("chaingw"))
      .map((f) => f.name)
      .join(", "),
    OWNERSHIP_LAYOUTS: EXCHANGE_OWNERSHIP.map((f) => f.name).join(", "),
  };
}
