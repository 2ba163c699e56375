/**
 * The one registry of proof formats, like the command table: every file chaingw can judge (its own reserve
 * proofs, its liabilities files, and the files exchanges publish) is one entry here. An entry says what the
 * format is and what chaingw can and cannot check in it, and decides from the text alone (cheaply: no heavy
 * import) whether a file is of its format; the reader, verifier and renderer are loaded on use.
 *
 * `detectFormat` is the one place that decides what a file is; `--format NAME` forces an entry by name.
 * Adding a format: a descriptor file `src/formats/<name>.ts` exporting one ProofFormat (cheap: no heavy
 * import at its top; `load()` imports the reader/verifier), one line in FORMATS below, a row in
 * docs/exchange-proofs.md.
 */
import { UsageError } from "../errors/index.js";
import { BINANCE, GATE, HTX_ZK } from "./binance.js";
import { BITGET } from "./bitget.js";
import { BITMEX } from "./bitmex.js";
import { BITUNIX } from "./bitunix.js";
import { COINEX } from "./coinex.js";
import { EXCHANGE_OWNERSHIP } from "./exchange-ownership.js";
import { MEXC } from "./mexc.js";
import { OKX_V1 } from "./okx-v1.js";
import { OKX_V2 } from "./okx-v2.js";
import { UZX } from "./uzx.js";

/** reserves: who controls which addresses and what they hold; liabilities: a customer's share of the total */
export type FormatKind = "reserves" | "liabilities";

export interface ProofFormat {
  /** the name `--format` takes, lower-case words joined by `-` ("chaingw-utxo", "okx-2024", "htx") */
  name: string;
  kind: FormatKind;
  /** who publishes it, in words ("OKX address and signature file, 2024-26 layout") */
  title: string;
  /** what chaingw checks in it */
  checks: readonly string[];
  /** what it cannot check, said plainly */
  cannot: readonly string[];
  /** flaws of the publisher's own verifier that chaingw catches */
  catches?: readonly string[];
  /** whether `text` (a file's whole content) is of this format; cheap, never throws */
  detect(text: string): boolean;
  /** the module that reads, verifies and renders it, loaded on use */
  load(): Promise<unknown>;
}

/** Every format, in the order detection tries them (most specific first). */
export const FORMATS: readonly ProofFormat[] = [
  // exchanges' address/signature files (src/exchange/ownership/)
  ...EXCHANGE_OWNERSHIP,
  // customers' inclusion proofs published by exchanges (src/exchange/liabilities/)
  OKX_V1,
  OKX_V2,
  BITGET,
  UZX,
  BITUNIX,
  MEXC,
  COINEX,
  BITMEX,
  BINANCE,
  GATE,
  HTX_ZK,
];

/** The formats of one kind (`reserves verify` takes reserves files, `liabilities verify` liabilities files). */
export const formatsOf = (kind: FormatKind): ProofFormat[] => FORMATS.filter((f) => f.kind === kind);

/**
 * The format named by `--format`, or a usage error listing the names of that kind. `flag`: the option's
 * spelling where the global --format (the output's) is taken (`liabilities verify --proof-format`).
 */
export function formatNamed(name: string, kind: FormatKind, flag = "--format"): ProofFormat {
  const f = formatsOf(kind).find((x) => x.name === name);
  if (f) return f;
  throw new UsageError(
    `${flag} ${JSON.stringify(name)}: not a ${kind} format; one of ${formatsOf(kind)
      .map((x) => x.name)
      .join(", ")}`,
  );
}

/** The format of a file's text: the first entry of that kind that recognises it, else undefined. */
export const detectFormat = (text: string, kind: FormatKind): ProofFormat | undefined =>
  formatsOf(kind).find((f) => f.detect(text));
