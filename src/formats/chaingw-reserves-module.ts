/**
 * The reader and verifier of chaingw's own reserves proofs as `ReservesModule`s: what `load()` of the
 * `chaingw-utxo` and `chaingw-evm` entries resolves to (loaded on use: it brings the proof library).
 */
import { type Proof, readProof } from "../proof/document.js";
import { type EvmProof, readEvmProof } from "../proof/evm-document.js";
import {
  evmEntry,
  type ReportEntry,
  utxoEntry,
  verifyEvmEntry,
  verifyUtxoEntry,
} from "../reserves/combined.js";
import type { ReservesModule } from "./types.js";

const n = (x: number) => x.toLocaleString("en");

/**
 * The report entry made when first read (it digests the whole document again): `reserves report` and
 * `solvency` read it, `reserves verify` never does.
 */
function withEntry<T extends object>(r: T, make: () => ReportEntry): T & { readonly entry: ReportEntry } {
  let entry: ReportEntry | undefined;
  return Object.defineProperty(r, "entry", {
    enumerable: true,
    get: () => {
      entry ??= make();
      return entry;
    },
  }) as T & { readonly entry: ReportEntry };
}

export const UTXO_MODULE: ReservesModule = {
  kind: "proof",
  read: (file, text) => {
    const utxo = readProof(text);
    return withEntry({ format: "chaingw-utxo" as const, utxo }, () => utxoEntry(file, utxo));
  },
  group: () => "utxo",
  verifyEntry: verifyUtxoEntry,
  namesGroup: false,
  async report(ctx, r) {
    const { verify } = await import("../reserves/utxo/verify.js");
    return verify(
      {
        ...ctx,
        onEvent: (e) =>
          ctx.onEvent(
            e.type === "walk"
              ? `walking blocks ${n(e.height)} of ${n(e.tip)} for ${e.pending} output${e.pending === 1 ? "" : "s"} spent since the proof`
              : e.text,
          ),
      },
      r.utxo as Proof,
    );
  },
  describeNode: (client, ep) => import("../reserves/quorum.js").then((q) => q.describeUtxoNode(client, ep)),
};

export const EVM_MODULE: ReservesModule = {
  kind: "proof",
  read: (file, text) => {
    const evm = readEvmProof(text);
    return withEntry({ format: "chaingw-evm" as const, evm }, () => evmEntry(file, evm));
  },
  group: (r) => r.evm?.chain.group ?? "evm",
  verifyEntry: verifyEvmEntry,
  namesGroup: true,
  async report(ctx, r) {
    const { verify } = await import("../reserves/evm/balances-verify.js");
    return verify(
      {
        ...ctx,
        onEvent: (e) =>
          ctx.onEvent(e.type === "read" ? `re-reading balances: ${e.done} of ${e.total}` : e.text),
      },
      r.evm as EvmProof,
    );
  },
  describeNode: (client, ep, r) =>
    import("../reserves/quorum.js").then((q) => q.describeEvmNode(client, ep, (r.evm as EvmProof).block)),
};
