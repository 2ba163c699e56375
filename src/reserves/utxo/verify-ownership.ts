/**
 * The UTXO proof's ownership step (verify.ts runs it): signatures over the challenge (and --challenge),
 * for addresses of the node's chain that the proof credits; each address's verdict and the proven total.
 */
import { verifyMessage } from "../../proof/message.js";
import { challengeFindings, checkChallenge, type Finding, signatureLines } from "../verdict.js";
import { cannotSay, claimedMismatch, claimedValidity, fails, ok } from "../verifier.js";
import { chainAddress } from "./verify-outputs.js";
import type { AddressVerdict, Ctx, State } from "./verify-state.js";

/** 8. Ownership: signatures over the challenge, for addresses of this chain that the proof credits. */
export function checkOwnership(c: Ctx, s: State): Finding[] {
  const { proof } = s;
  const o = c.options;
  const challenge = checkChallenge(proof.challenge, o.challenge);
  s.challenge = challenge;
  const out: Finding[] = challengeFindings(challenge).filter((f) => f.status === "fails");
  const sigBy = judgeSignatureLines(c, s, challenge.ok === false, out);
  if (challenge.ok !== false) {
    const claimed = claimedValidity(proof.ownership?.signatures, o.signatures);
    for (const [address, was] of claimed) {
      const now = sigBy.get(address);
      const f = now && !now.cannotJudge && claimedMismatch(address, was, now.valid);
      if (f) out.push(f);
    }
  }
  const addresses = addressVerdicts(s, sigBy);
  for (const a of addresses)
    if (a.ownership === "proven")
      out.push(ok("ownership", `${a.address}: ${a.detail ?? "proven"}`, a.address));
  return out;
}

type SignatureJudged = { valid: boolean; detail: string; cannotJudge?: true };

/**
 * Every signature line (the document's and --signatures) judged over the proof's challenge, with the node's
 * coin's magic: a finding for each that fails or cannot be judged on a credited address, added to `out`; the
 * judgement of each credited address kept, by address.
 */
function judgeSignatureLines(
  c: Ctx,
  s: State,
  otherChallenge: boolean,
  out: Finding[],
): Map<string, SignatureJudged> {
  const { proof } = s;
  const lines = signatureLines(c.options.signatures, proof.ownership?.signatures);
  const credited = new Set(proof.by_address.map((a) => a.address));
  const sigBy = new Map<string, SignatureJudged>();
  for (const l of lines) {
    if (otherChallenge) {
      // one failure above says why; none of these signatures proves anything for this audit
      sigBy.set(l.address, { valid: false, detail: "over another challenge than the required one" });
      continue;
    }
    if (proof.challenge === null) {
      out.push(
        fails(
          "ownership",
          `signature for ${l.address}: the proof has no challenge to check it against`,
          l.address,
        ),
      );
      continue;
    }
    let r: SignatureJudged;
    const a = s.nodeOk ? chainAddress(s, l.address) : undefined;
    if (a && "why" in a) r = { valid: false, detail: a.why };
    else
      try {
        // the node's coin decides the message magic (a shared test-network prefix does not)
        r = verifyMessage(l.address, l.signature, proof.challenge, { coin: s.coin });
      } catch (e) {
        r = { valid: false, detail: (e as Error).message };
      }
    sigBy.set(l.address, r);
    if (r.cannotJudge && credited.has(l.address))
      out.push(
        cannotSay(
          "ownership",
          `signature for ${l.address}: a form chaingw cannot judge: ${r.detail}`,
          l.address,
        ),
      );
    else if (r.cannotJudge) sigBy.delete(l.address);
    else if (!r.valid)
      out.push(
        fails(
          "ownership",
          `signature for ${l.address} does not verify over the challenge: ${r.detail}`,
          l.address,
        ),
      );
    else if (!credited.has(l.address))
      // harmless: a signature proves ownership of nothing the proof counts
      sigBy.delete(l.address);
  }
  return sigBy;
}

/**
 * Each credited address's verdict (its outputs, its signature) and the proven total, from the outputs that
 * held, never from the document's own figures; both kept on the state.
 */
function addressVerdicts(s: State, sigBy: Map<string, SignatureJudged>): AddressVerdict[] {
  const { proof } = s;
  const failedBy = new Map<string, number>();
  for (const v of s.verdicts) if (!v.ok) failedBy.set(v.matched, (failedBy.get(v.matched) ?? 0) + 1);
  const addresses: AddressVerdict[] = proof.by_address.map((a) => {
    const sig = sigBy.get(a.address);
    const failed = failedBy.get(a.address) ?? 0;
    return {
      address: a.address,
      amount: a.amount,
      amount_sats: a.amount_sats,
      outputs: a.outputs,
      outputs_failed: failed,
      outputs_ok: failed === 0,
      ownership:
        sig === undefined
          ? "claimed-only"
          : sig.valid
            ? "proven"
            : sig.cannotJudge
              ? "cannot-say"
              : "unproven",
      ...(sig ? { detail: sig.detail } : {}),
    };
  });
  const provenBy = new Set(addresses.filter((a) => a.ownership === "proven").map((a) => a.address));
  const provenSats = proof.outputs.reduce(
    (t, x, i) => (provenBy.has(x.matched) && s.verdicts[i]?.ok ? t + BigInt(x.amount_sats) : t),
    0n,
  );
  const total = proof.outputs.reduce((t, x) => t + BigInt(x.amount_sats), 0n);
  s.addresses = addresses;
  s.ownership = {
    proven_sats: provenSats.toString(),
    claimed_only_sats: (total - provenSats).toString(),
    proven_addresses: addresses.filter((a) => a.ownership === "proven").length,
    addresses: addresses.length,
  };
  return addresses;
}
