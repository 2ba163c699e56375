/**
 * `liabilities verify`'s flags for exchanges' customer inclusion proofs (OKX, Bitget, MEXC, CoinEx, BitMEX,
 * Binance and their kin). Declaring them is light; each format's module (src/formats/inclusion.ts) refuses
 * the flags its format does not take.
 */
import type { Command } from "commander";
import { UsageError } from "../../../errors/index.js";
import type { EXCHANGE_FLAGS } from "../../../formats/inclusion.js";
import type { LiabilitiesInput } from "../../../formats/registry.js";
import { ZK_PUBLISHERS } from "../../help-lists.js";

/** The exchange formats' flags (`LiabilitiesInput`'s, as typed) and --proof-format. */
export type ExchangeVerifyOptions = Partial<Pick<LiabilitiesInput, keyof typeof EXCHANGE_FLAGS>> & {
  /** --proof-format: the registry name (the global --format is the output format) */
  proofFormat?: string;
};

export function declareExchangeOptions(cmd: Command): void {
  cmd
    .option(
      "--proof-format <name>",
      "an exchange's inclusion-proof format, when detection should not choose (--format is the output's)",
    )
    .option("--tree <file>", "OKX v2: the full liabilities tree file (or give it as the second file)")
    .option(
      "--root <hex>",
      "the root the exchange published; without it the file agrees only with its own root: cannot say (exit 3)",
    )
    .option(
      "--anchor <file>",
      "Hotcoin: the anchor file it published (root, totals, leaf count): --root's part",
    )
    .option("--account <id>", "BitMEX/River: your account number")
    .option("--nonce <hex>", "BitMEX: your account nonce")
    .option("--account-key <hex>", "River: your account key")
    .option("--email <address>", "River: your account's e-mail")
    .option(
      "--credential <text>",
      "SwissBorg: your audit credential (the secret your leaves' nonces derive from; never printed); BlocPalX: your proof sentence",
    )
    .option(
      "--leaf <hex>",
      "a leaf list (the auditors' Merkle tree tool: Bitso, Gate 2020-22): your leaf hash; BlocPalX: your sentence hash",
    )
    .option(
      "--asset-slots <n>",
      `${ZK_PUBLISHERS} zk proofs: the tool's number of asset slots (else the counts its versions used, only)`,
    );
}

export function exchangeOptionsOf(tree: string | undefined, o: ExchangeVerifyOptions): ExchangeVerifyOptions {
  if (tree !== undefined && o.tree !== undefined)
    throw new UsageError("the tree file given twice (a second file and --tree): give one");
  return { ...o, tree: tree ?? o.tree };
}
