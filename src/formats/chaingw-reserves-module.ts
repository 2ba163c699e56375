/**
 * The reader and verifier of chaingw's own reserves proofs as `ReservesModule`s: what `load()` of the
 * `chaingw-utxo` and `chaingw-evm` entries resolves to (loaded on use: it brings the proof library).
 */
import { readProof } from "../proof/document.js";
import { readEvmProof } from "../proof/evm-document.js";
import { evmEntry, utxoEntry, verifyEvmEntry, verifyUtxoEntry } from "../reserves/combined.js";
import type { ReservesModule } from "./registry.js";

export const UTXO_MODULE: ReservesModule = {
  read: (file, text) => {
    const utxo = readProof(text);
    return { format: "chaingw-utxo", entry: utxoEntry(file, utxo), utxo };
  },
  group: () => "utxo",
  verifyEntry: verifyUtxoEntry,
};

export const EVM_MODULE: ReservesModule = {
  read: (file, text) => {
    const evm = readEvmProof(text);
    return { format: "chaingw-evm", entry: evmEntry(file, evm), evm };
  },
  group: (r) => r.evm?.chain.group ?? "evm",
  verifyEntry: verifyEvmEntry,
};
