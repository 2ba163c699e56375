/**
 * `liabilities verify` on an exchange's customer inclusion proof (OKX, Bitget, MEXC, CoinEx, BitMEX, Binance
 * and their kin): the format from the registry (detected from the text, or --format), its verifier loaded on
 * use, the verdict printed. Declaring the options is light; the registry and the verifiers come by import().
 */
import type { Command } from "commander";
import { UsageError } from "../../../errors/index.js";
import type { InclusionOptions, InclusionVerifier } from "../../../exchange/liabilities/check.js";
import type { ProofFormat } from "../../../formats/registry.js";
import { exitCodeOfVerdict } from "../../../reserves/verdict.js";
import type { Run } from "../../run.js";

export interface ExchangeVerifyOptions {
  /** --proof-format: the registry name (the global --format is the output format) */
  proofFormat?: string;
  /** the second file: positional, or --tree */
  tree?: string;
  root?: string;
  account?: string;
  nonce?: string;
  accountKey?: string;
  email?: string;
  assetSlots?: string;
}

export function declareExchangeOptions(cmd: Command): void {
  cmd
    .option(
      "--proof-format <name>",
      "an exchange's inclusion-proof format, when detection should not choose (--format is the output's)",
    )
    .option("--tree <file>", "OKX v2: the full liabilities tree file (or give it as the second file)")
    .option("--root <hex>", "the root the exchange published; without it the root is the file's own")
    .option("--account <id>", "BitMEX/River: your account number")
    .option("--nonce <hex>", "BitMEX: your account nonce")
    .option("--account-key <hex>", "River: your account key")
    .option("--email <address>", "River: your account's e-mail")
    .option(
      "--asset-slots <n>",
      "HTX/Gate zk proofs: the tool's number of asset slots (else the known ones, then 1-1024, are tried)",
    );
}

export function exchangeOptionsOf(tree: string | undefined, o: ExchangeVerifyOptions): ExchangeVerifyOptions {
  if (tree !== undefined && o.tree !== undefined)
    throw new UsageError("the tree file given twice (a second file and --tree): give one");
  return { ...o, tree: tree ?? o.tree };
}

const EXCHANGE_ONLY = ["tree", "root", "account", "nonce", "accountKey", "email", "assetSlots"] as const;
const flag = (k: string) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/**
 * The exchange format of a file (forced by --format, else detected), or undefined for chaingw's own proofs.
 * An exchange's options on one of chaingw's proofs are a usage error, not ignored.
 */
export async function exchangeFormatOf(
  text: string,
  o: ExchangeVerifyOptions | undefined,
  commitment: boolean,
): Promise<ProofFormat | undefined> {
  const { detectFormat, formatNamed, isOwnFormat } = await import("../../../formats/registry.js");
  const named =
    o?.proofFormat !== undefined
      ? formatNamed(o.proofFormat, "liabilities", "--proof-format")
      : detectFormat(text, "liabilities");
  // chaingw's own proofs (registry entries too) take the commitment path
  const format = named && isOwnFormat(named) ? undefined : named;
  if (format && commitment)
    throw new UsageError(`--commitment: this is ${format.title}, which has no commitment file; leave it out`);
  if (!format) {
    const stray = EXCHANGE_ONLY.filter((k) => o?.[k] !== undefined);
    if (stray.length && !commitment)
      throw new UsageError(
        `${flag(stray[0] as string)}: the file is not an exchange's inclusion proof chaingw knows (--proof-format NAME forces one)`,
      );
  }
  return format;
}

export async function runExchangeVerify(
  format: ProofFormat,
  text: string,
  o: { proof: string; json: boolean; customer?: string; exchange?: ExchangeVerifyOptions },
  io: Pick<Run, "out" | "err" | "exitCode">,
): Promise<void> {
  const x = o.exchange ?? {};
  if (o.customer !== undefined)
    throw new UsageError(
      `--customer: ${format.title} names no customer id chaingw can compare (BitMEX/River: --account)`,
    );
  if (x.root !== undefined && !/^(0x)?[0-9a-fA-F]+$/.test(x.root))
    throw new UsageError(`--root ${JSON.stringify(x.root)}: not hex`);
  if (x.assetSlots !== undefined && !/^[1-9]\d{0,3}$/.test(x.assetSlots))
    throw new UsageError(`--asset-slots ${JSON.stringify(x.assetSlots)}: a whole number 1-9999`);
  const { readText } = await import("../../files.js");
  const opts: InclusionOptions = {
    file: o.proof,
    root: x.root,
    tree: x.tree === undefined ? undefined : { text: readText(x.tree, "tree"), file: x.tree },
    account: x.account,
    nonce: x.nonce,
    accountKey: x.accountKey,
    email: x.email,
    assetSlots: x.assetSlots === undefined ? undefined : Number(x.assetSlots),
  };
  const verifier = (await format.load()) as InclusionVerifier;
  const r = await verifier.verify(text, opts);
  io.exitCode = exitCodeOfVerdict(r.verdict);
  const { renderInclusion } = await import("../../render/inclusion.js");
  io.out(o.json ? JSON.stringify(r, null, 2) : renderInclusion(r, format.title));
}
