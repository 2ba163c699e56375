/**
 * The messages an address file's rows sign (exchange/ownership/verify.ts's `message` step): the one
 * `--challenge` requires, else those each layout's publisher signs — a row's judgment after them, typed
 * (judge/words-rows.ts words it).
 */
import { HTX_COLUMNS_TEXTS, type OwnershipLayout } from "./read.js";
import type { RowPatch, RowResult } from "./report.js";

/**
 * The messages each layout's rows sign (every real file's): OKX "I am an OKX address", its 2025 audit the
 * audit's code and a year, HTX its name or its slogan, Poloniex its name (either case). None carries a snapshot
 * date or height, so none shows control at the snapshot; `--challenge TEXT` requires one exact message instead.
 */
const textsOf = (texts: readonly string[]) => ({
  known: { texts, year: false },
  test: (m: string) => texts.includes(m),
});

const MESSAGES: Record<
  OwnershipLayout,
  { known: { texts: readonly string[]; year: boolean }; test: (m: string) => boolean }
> = {
  "okx-2022": textsOf(["I am an OKX address"]),
  "okx-2024": textsOf(["I am an OKX address"]),
  "okx-audit-2025": {
    known: { texts: ["OKC_DTT_AUP"], year: true },
    test: (m) => /^OKC_DTT_AUP\d{4}$/.test(m),
  },
  htx: textsOf(HTX_COLUMNS_TEXTS.htx),
  poloniex: textsOf(HTX_COLUMNS_TEXTS.poloniex),
};

/**
 * A signed row's messages against the one `--challenge` requires (another fails) or, without it, the ones
 * its layout's publisher signs (another: cannot say whose claim the signature makes). Proven rows only are
 * downgraded to cannot-say; a required message not signed fails any signed row. A contract wallet's owners
 * (HTX lists each owner's row with its own text) sign one text, as every row of an audit does: owners who
 * signed different texts are each named with theirs — a required one not signed fails the wallet, naming the
 * owner; without one, whose claim the mix makes cannot be told. The row's new judgment, or undefined when the
 * messages leave it as it is.
 */
export function judgeMessages(
  res: RowResult,
  signers: readonly { address?: string; message: string }[],
  layout: OwnershipLayout,
  required?: string,
): RowPatch | undefined {
  const signed = signers.filter((m) => m.message.trim() !== "");
  if (signed.length === 0 || res.status === "failed" || res.status === "unsigned") return undefined;
  const owner = (m: { address?: string }) => m.address ?? null;
  if (required !== undefined) {
    const other = signed.find((m) => m.message !== required);
    return other === undefined
      ? undefined
      : {
          proven: false,
          status: "failed",
          why: [{ code: "not-the-challenge", owner: owner(other), message: other.message, required }],
        };
  }
  const texts = new Set(signed.map((m) => m.message));
  if (texts.size > 1 && (res.status === "proven" || res.status === "cannot-say"))
    return {
      proven: null,
      status: "cannot-say",
      why: [
        ...res.why,
        {
          code: "owners-texts-differ",
          signed: signed.map((m) => ({ address: String(m.address), message: m.message })),
        },
      ],
    };
  const known = MESSAGES[layout];
  const other = signed.find((m) => !known.test(m.message));
  if (other === undefined || (res.status !== "proven" && res.status !== "cannot-say")) return undefined;
  return {
    proven: null,
    status: "cannot-say",
    why: [
      ...res.why,
      { code: "not-the-publishers", owner: owner(other), message: other.message, layout, known: known.known },
    ],
  };
}
