/**
 * chaingw's own reserves proofs: the UTXO reserve proof (`reserves scan --proof`) and the EVM balances proof
 * (`reserves balances --proof`). Detected by the document's top-level `format` member; `load()` brings the
 * reader and the verifier (chaingw-reserves-module.ts), which `reserves verify`, `reserves report` and `solvency`
 * use through the `ReservesModule` they resolve to.
 */

import { formatMember } from "./sniff.js";
import type { ProofFormat, ReservesModule } from "./types.js";

/** the `format` member of each document (proof/document.ts PROOF_FORMAT, proof/evm-document.ts EVM_PROOF_FORMAT) */
export const UTXO_FORMAT_MEMBER = "chaingw-reserves-proof/1";
export const EVM_FORMAT_MEMBER = "chaingw-evm-balances-proof/1";

export const CHAINGW_UTXO: ProofFormat<ReservesModule> = {
  name: "chaingw-utxo",
  kind: "reserves",
  title: `chaingw's UTXO reserve proof ("${UTXO_FORMAT_MEMBER}", reserves scan --proof)`,
  checks: [
    "the digest over the document's RFC 8785 form; the totals and every per-address subtotal as sums of the outputs",
    "the node: a bitcoind-family node on the proof's network, at or above the proof's height",
    "the block at the proof's height is the proof's block (else where the chains part)",
    "every output's script is its address's or descriptor's, and among what the scan objects produce",
    "every output existed in its block with that amount and script, and was unspent at the proof's height",
    "signatures over the challenge (and --challenge); the proven total from the outputs that held",
  ],
  cannot: [
    "created_at and the challenge's text itself: the proof's claims, printed as such",
    "outputs the scan left out (excluded): neither counted nor checked",
  ],
  detect: (t) => formatMember(t) === UTXO_FORMAT_MEMBER,
  load: () => import("./chaingw-reserves-module.js").then((m) => m.UTXO_MODULE),
};

export const CHAINGW_EVM: ProofFormat<ReservesModule> = {
  name: "chaingw-evm",
  kind: "reserves",
  title: `chaingw's EVM balances proof ("${EVM_FORMAT_MEMBER}", reserves balances --proof)`,
  checks: [
    "the digest over the document's RFC 8785 form; the inputs as given normalise to the proof's addresses and assets",
    "the node's chain id, network name and native coin are the proof's",
    "the proof's block is on the node's chain (else behind: cannot say; replaced: fails)",
    "every token's decimals and symbol, and every balance, re-read at the proof's block",
    "signatures over the challenge: keys offline, contract wallets by EIP-1271 at the proof's block",
  ],
  cannot: [
    "balances at a block the node holds no state for (not an archive node): cannot say",
    "a latest-only snapshot once the chain's head has moved on",
  ],
  detect: (t) => formatMember(t) === EVM_FORMAT_MEMBER,
  load: () => import("./chaingw-reserves-module.js").then((m) => m.EVM_MODULE),
};
