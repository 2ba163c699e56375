/**
 * `reserves verify` of an EVM balances proof, its last step (balances-verify.ts `STEPS`): 6. ownership — each
 * signature judged again over the proof's challenge (a key's offline, a contract wallet's EIP-1271 answer at the
 * proof's block, by its hash where the chain takes EIP-1898), the proven totals from the balances that re-read
 * equal — then block N asked again (`blockMoved`, the balances step's too): a reorg since leaves none of the
 * reads after the balances judged.
 */
import { type AccountFormat, verifyAccountSignature } from "../../proof/account-message.js";
import type { SignatureLine } from "../../proof/document.js";
import { share } from "../claims.js";
import { challengeFindings, checkChallenge, type Finding, signatureLines } from "../verdict.js";
import { cannotSay, claimedMismatch, claimedValidity, fails, ok } from "../verifier.js";
import { atNumber, readBlock } from "./balances-read.js";
import type { Ctx, EvmVerifyReport, State } from "./balances-verify.js";
import { judgeSignatures, provenTotals, type SignatureJudgement } from "./ownership.js";

/**
 * Whether block N is no longer the proof's block as the node has it now (asked by number; a latest-only
 * snapshot: the head), the hash it has now kept in `nowHash`.
 */
export async function blockMoved(c: Ctx, s: State): Promise<boolean> {
  const { proof, chain, at } = s;
  if (at === undefined) return false;
  const now = await readBlock(c.client, chain, atNumber(at));
  s.nowHash = now?.hash ?? null;
  return !(now !== null && now.number === proof.block.number && now.hash === proof.block.hash);
}

/**
 * 6. Ownership (`judgeOwnership`), then block N asked again: the tracking probe's and the signatures' reads were
 * of the proof's block (by hash, or by number while it still was): a reorg since the balances (said by them
 * otherwise) leaves none of them judged — no signature proven or failed on another block's state — cannot say.
 */
export async function checkOwnership(c: Ctx, s: State): Promise<Finding[]> {
  const out = await judgeOwnership(c, s);
  if (s.at === undefined || s.reorg || !(await blockMoved(c, s))) return out;
  s.reorg = true;
  const n = s.proof.block.number;
  const detail =
    s.at === "latest"
      ? `the head moved off block ${n} while the tokens were probed and the signatures judged; a latest-only snapshot cannot be re-read now`
      : `block ${n} changed from ${s.proof.block.hash} to ${s.nowHash ?? "nothing"} after the balances were re-read (a reorg): the tracking probe's and the signatures' reads may be of another block, so none is judged; verify again`;
  s.ownership = {
    addresses: s.ownership.addresses.map((a) => ({ ...a, ownership: "cannot-say" as const })),
    proven: s.ownership.proven.map((p) => ({ ...p, amount: "0", base_units: "0", share: share(0n, 1n) })),
    proven_addresses: 0,
  };
  return [
    ...out.filter((f) => f.step !== "ownership"),
    cannotSay("block", detail, s.at === "latest" ? "snapshot" : "block.hash"),
  ];
}

/** Ownership: signatures over the challenge, judged again; proven totals from the balances that held. */
async function judgeOwnership(c: Ctx, s: State): Promise<Finding[]> {
  const { proof, chain, at } = s;
  const o = c.options;
  c.onEvent({ type: "step", text: "checking ownership signatures" });
  const text = proof.challenge ?? null;
  const challenge = checkChallenge(text, o.challenge);
  s.challenge = challenge;
  const out: Finding[] = challengeFindings(challenge).filter((f) => f.status === "fails");
  const lines: SignatureLine[] = signatureLines(o.signatures, proof.ownership?.signatures);
  if (lines.length === 0 || challenge.ok === false) return out;
  if (text === null) {
    out.push(fails("ownership", "signatures: the proof has no challenge to check them against", "challenge"));
    return out;
  }
  let judged: SignatureJudgement[];
  if (at !== undefined) judged = await judgeSignatures(c.client, chain, lines, text, at, c.signal);
  else {
    // the proof's block cannot be read: a key's signature still can be judged; a contract wallet's cannot
    const format: AccountFormat = chain.evm?.messageSignature ?? "eip191";
    judged = lines.map((l) => {
      const address = l.address.toLowerCase();
      let r: { valid: boolean; detail: string } = { valid: false, detail: "not a 65-byte key signature" };
      try {
        r = verifyAccountSignature(format, address, l.signature, text);
      } catch {}
      return r.valid
        ? { address, valid: true, format, detail: r.detail }
        : {
            address,
            valid: false,
            format,
            cannotSay: true,
            detail: `${r.detail}; whether a contract wallet at ${address} approves it cannot be asked at block ${proof.block.number} on this node`,
          };
    });
  }
  const inProof = new Set(proof.addresses);
  const claimed = claimedValidity(proof.ownership?.signatures, o.signatures);
  const addresses: EvmVerifyReport["ownership"]["addresses"] = [];
  for (const j of judged) {
    if (!inProof.has(j.address)) continue; // proves nothing the proof counts
    const state = j.valid ? "proven" : j.cannotSay ? "cannot-say" : "unproven";
    addresses.push({ address: j.address, ownership: state, format: j.format, detail: j.detail });
    if (state === "proven") out.push(ok("ownership", `${j.address}: ${j.detail}`, j.address));
    if (state === "unproven")
      out.push(
        fails(
          "ownership",
          `signature for ${j.address} does not verify over the challenge: ${j.detail}`,
          j.address,
        ),
      );
    if (state === "cannot-say")
      out.push(cannotSay("ownership", `signature for ${j.address}: ${j.detail}`, j.address));
    const mismatch =
      state === "cannot-say" ? undefined : claimedMismatch(j.address, claimed.get(j.address), j.valid);
    if (mismatch) out.push(mismatch);
  }
  // proven: the addresses proven, counting only balances the node confirmed (none when nothing was re-read)
  const reRead = s.balances.ok !== null;
  const provenSet = new Set(addresses.filter((a) => a.ownership === "proven").map((a) => a.address));
  const proven = provenTotals(
    {
      assets: proof.assets.map((a) => ({
        ...a,
        balances: a.balances.filter((b) => reRead && !s.differing.has(`${a.id} ${b.address}`)),
      })),
    },
    provenSet,
  ).map((p, k) => ({
    ...p,
    share: share(BigInt(p.base_units), BigInt(proof.assets[k]?.total.base_units ?? "0")),
  }));
  s.ownership = { addresses, proven, proven_addresses: provenSet.size };
  return out;
}
