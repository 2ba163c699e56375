/**
 * An exchange's inclusion verifier (src/exchange/liabilities/) as the `LiabilitiesModule` `liabilities
 * verify` runs: the flags its formats do not take refused (exit 2, nothing judged), --root and --asset-slots
 * checked, the second file read, then the verifier. The descriptors' `load()` wrap their verifier with it.
 */
import { UsageError } from "../errors/index.js";
import type { InclusionCheck, InclusionOptions } from "../exchange/liabilities/check.js";
import { hasMarks } from "./sniff.js";
import type { LiabilitiesModule, ProofFormat } from "./types.js";

/** The flags of `LiabilitiesInput` that only exchanges' formats take, as the command line spells them. */
export const EXCHANGE_FLAGS = {
  tree: "--tree",
  anchor: "--anchor",
  root: "--root",
  account: "--account",
  nonce: "--nonce",
  accountKey: "--account-key",
  email: "--email",
  assetSlots: "--asset-slots",
  leaf: "--leaf",
  credential: "--credential",
} as const;

type Verify = (text: string, o: InclusionOptions) => InclusionCheck | Promise<InclusionCheck>;

/** The module of an exchange's format whose verifier `get` loads (on use). */
export const inclusionModule = (get: () => Promise<Verify>) => async (): Promise<LiabilitiesModule> => {
  const verify = await get();
  return {
    async verify(text, x, format) {
      if (x.commitment !== undefined)
        throw new UsageError(
          `--commitment: this is ${format.title}, which has no commitment file; leave it out`,
        );
      if (x.customer !== undefined)
        throw new UsageError(
          `--customer: ${format.title} names no customer id chaingw can compare (BitMEX/River: --account)`,
        );
      if (x.root !== undefined && !/^(0x)?[0-9a-fA-F]+$/.test(x.root))
        throw new UsageError(`--root ${JSON.stringify(x.root)}: not hex`);
      if (x.credential !== undefined && x.credential.trim() === "")
        throw new UsageError("--credential: empty; give your audit credential as SwissBorg shows it");
      if (x.leaf !== undefined && !/^([0-9a-fA-F]{16}|[0-9a-fA-F]{64})$/.test(x.leaf))
        throw new UsageError(
          `--leaf ${JSON.stringify(x.leaf)}: a leaf is 16 hex digits (the auditors' tool) or 64 (BlocPalX's sentence hash)`,
        );
      if (x.assetSlots !== undefined && !/^[1-9]\d{0,3}$/.test(x.assetSlots))
        throw new UsageError(`--asset-slots ${JSON.stringify(x.assetSlots)}: a whole number 1-9999`);
      const check = await verify(text, {
        file: x.file,
        root: x.root,
        tree: x.tree === undefined ? undefined : { text: x.readFile(x.tree, "tree"), file: x.tree },
        anchor:
          x.anchor === undefined ? undefined : { text: x.readFile(x.anchor, "--anchor"), file: x.anchor },
        account: x.account,
        nonce: x.nonce,
        accountKey: x.accountKey,
        email: x.email,
        leaf: x.leaf,
        credential: x.credential,
        assetSlots: x.assetSlots === undefined ? undefined : Number(x.assetSlots),
      });
      return { kind: "inclusion", verdict: check.verdict, check, notes: [] };
    },
  };
};

/** An exchange's inclusion format as its file declares it: what it is and checks, its verifier, how its files are told. */
type ExchangeFormat = Omit<ProofFormat<LiabilitiesModule>, "kind" | "detect" | "load"> & {
  /** beyond its marks (every one present, sniff.ts `hasMarks`), what tells its files apart; alone where it has none */
  also?: (text: string) => boolean;
  /** its verifier (src/exchange/liabilities/), loaded on use */
  verifier: () => Promise<Verify>;
};

/** The descriptor of an exchange's format: `detect` from its marks (and `also`), `load` its verifier wrapped. */
export function exchangeFormat({ also, verifier, ...d }: ExchangeFormat): ProofFormat<LiabilitiesModule> {
  const { marks } = d;
  if (marks === undefined && also === undefined)
    throw new Error(`format ${d.name}: no marks and no test of its own`);
  return {
    ...d,
    kind: "liabilities",
    detect: (t) => (marks === undefined || hasMarks(t, marks)) && (also === undefined || also(t)),
    load: inclusionModule(verifier),
  };
}
