/**
 * The lists that help texts name, read from the tables: the coins whose messages chaingw verifies, the
 * networks `--backing` takes, the well-known assets. Run at build time only (scripts/gen-help.mjs writes
 * them into src/cli/help-lists.ts as plain strings): declaring the command tree loads no table for them.
 * test/help-lists.test.ts fails when the written file and the tables part.
 */
import { KNOWN_NETWORKS, WELL_KNOWN_ASSETS } from "../chains/assets.js";
import { MESSAGE_COINS, sentenceList } from "../chains/coins.js";

export function helpListsOf(): Record<string, string> {
  return {
    /** "Bitcoin or Litecoin" */
    MESSAGE_COINS: sentenceList(MESSAGE_COINS.map((c) => c.name)),
    /** "Bitcoin/Litecoin" */
    MESSAGE_COINS_SLASH: MESSAGE_COINS.map((c) => c.name).join("/"),
    /** every name `--backing` takes, in the table's order */
    BACKING_NETWORKS: KNOWN_NETWORKS.map((n) => n.name).join(", "),
    /** the older spellings it still takes */
    BACKING_ALIASES: sentenceList(KNOWN_NETWORKS.flatMap((n) => n.aliases ?? [])),
    /** "BTC, LTC, ETH, TRX, USDT, USDC, DAI" */
    WELL_KNOWN_ASSETS: WELL_KNOWN_ASSETS.join(", "),
  };
}
