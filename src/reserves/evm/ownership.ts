/**
 * Ownership of EVM and TRON addresses for the balances proof: each signature over the challenge is judged
 * first as a key's signature (EIP-191 on EVM chains, TIP-191 on TRON: src/proof/account-message.ts), and,
 * where the address holds code, as the contract wallet's own answer (EIP-1271: `isValidSignature(hash,
 * signature)` returning 0x1626ba7e, called at the proof's block; hash is the chain's message hash of the
 * challenge, the digest a wallet's owners sign). A node that cannot read the wallet's state at that block
 * leaves the address "cannot say", never "not proven".
 */
import type { ChainGroup } from "../../chains/index.js";
import { ChaingwError, RpcError } from "../../errors/index.js";
import {
  type AccountFormat,
  accountMessageHash,
  verifyAccountSignature,
} from "../../proof/account-message.js";
import type { SignatureLine } from "../../proof/document.js";
import { ProofInputError } from "../../proof/errors.js";
import type { EvmOwnership, EvmProof, EvmSignature } from "../../proof/evm-document.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import { formatUnits } from "../../util/units.js";
import {
  atParam,
  blockText,
  prepareRead,
  readFailure,
  readMany,
  type StateAt,
  StateUnavailableError,
} from "./balances-read.js";

/** EIP-1271's magic value: the selector of isValidSignature(bytes32,bytes). */
export const EIP1271_MAGIC = "0x1626ba7e";

/** One signature's judgement; `cannotSay` when the node could not read the contract wallet's state. */
export type SignatureJudgement = Omit<EvmSignature, "signature"> & { cannotSay?: boolean };

/** 0x + lowercase hex of the address of a signature line, as the chain's nodes take it. */
export function accountOf(chain: ChainGroup, text: string): string {
  const own = chain.evm?.normaliseAddress?.(text);
  if (own !== undefined) return own.toLowerCase();
  if (/^0x[0-9a-fA-F]{40}$/.test(text)) return text.toLowerCase();
  throw new ProofInputError("address", `${text} is not an address of the ${chain.name} chain`);
}

/**
 * Judges every line at `block` ("0x…", "latest", or the block by its hash, EIP-1898): key signatures offline, the rest through the code and
 * EIP-1271 answer of the address, in batch arrays. Lines of addresses not in the proof are judged too (the
 * caller decides what they count for).
 */
export async function judgeSignatures(
  client: JsonRpcClient,
  chain: ChainGroup,
  lines: SignatureLine[],
  challenge: string,
  block: StateAt,
  signal?: AbortSignal,
): Promise<SignatureJudgement[]> {
  const b = atParam(block);
  const format: AccountFormat = chain.evm?.messageSignature ?? "eip191";
  const hash = `0x${Buffer.from(accountMessageHash(format, challenge)).toString("hex")}`;
  const out: SignatureJudgement[] = lines.map((l) => {
    const address = accountOf(chain, l.address);
    try {
      const r = verifyAccountSignature(format, address, l.signature, challenge);
      return { address, valid: r.valid, format: r.format, detail: r.detail };
    } catch (e) {
      // not a 65-byte key signature: only a contract wallet can judge it
      return { address, valid: false, format, detail: (e as Error).message };
    }
  });
  // the addresses a key did not prove: a contract wallet may
  const ask = out.map((o, i) => (o.valid ? -1 : i)).filter((i) => i >= 0);
  if (ask.length === 0) return out;
  const codes = await readMany(
    client,
    chain,
    ask.map((i) => prepareRead(chain, "eth_getCode", [out[i]!.address, b])),
    undefined,
    signal,
  );
  const wallets: number[] = [];
  codes.forEach((c, k) => {
    const i = ask[k] as number;
    const o = out[i] as SignatureJudgement;
    if (c instanceof ChaingwError) {
      const e = readFailure(
        prepareRead(chain, "eth_getCode", [o.address, b]),
        c,
        `eth_getCode(${o.address})`,
        block,
      );
      if (!(e instanceof StateUnavailableError)) throw e;
      out[i] = {
        ...o,
        cannotSay: true,
        detail: `${o.detail}; whether it is a contract wallet cannot be read: ${e.message}`,
      };
    } else if (typeof c.result === "string" && c.result !== "0x" && c.result !== "") wallets.push(i);
  });
  if (wallets.length === 0) return out;
  const A = (await import("../../util/ox.js")).AbiFunction;
  const fn = A.from("function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)");
  const ask1271 = (to: string, h: string, sig: string) =>
    prepareRead(chain, "eth_call", [
      { to, data: A.encodeData(fn, [h as `0x${string}`, sig as `0x${string}`]) },
      b,
    ]);
  // per wallet: the signature over the challenge, then the controls at the same block (PROBES' order)
  const calls = wallets.flatMap((i) => {
    const l = lines[i] as SignatureLine;
    const sig = (l.signature.startsWith("0x") ? l.signature : `0x${l.signature}`).toLowerCase();
    const size = (sig.length - 2) / 2;
    const to = out[i]!.address;
    return [
      ask1271(to, hash, sig),
      ask1271(to, randomHex(32), sig),
      ask1271(to, hash, randomHex(size)),
      ask1271(to, hash, `0x${"00".repeat(size)}`),
    ];
  });
  const answers = await readMany(client, chain, calls, undefined, signal);
  wallets.forEach((i, w) => {
    const o = out[i] as SignatureJudgement;
    const read = (k: number) =>
      answerOf(chain, calls[w * 4 + k]!, answers[w * 4 + k]!, `isValidSignature at ${o.address}`, block);
    out[i] = { address: o.address, format: "eip1271", ...judge1271(read(0), [1, 2, 3].map(read), block) };
  });
  return out;
}

/** What a wallet's isValidSignature call came to. */
type Answer =
  | { kind: "magic" }
  | { kind: "other"; value: string }
  | { kind: "reverted"; reason: string }
  | { kind: "unreadable"; why: string };

/** The controls asked beside the signature over the challenge, each at the proof's block. */
const PROBES = ["a random challenge", "a random signature", "an all-zero signature"];

/** 0x + `n` fresh random bytes: a control no wallet can have been prepared for. */
const randomHex = (n: number): string =>
  `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(n))).toString("hex")}`;

function answerOf(
  chain: ChainGroup,
  call: ReturnType<typeof prepareRead>,
  a: Awaited<ReturnType<typeof readMany>>[number],
  what: string,
  block: StateAt,
): Answer {
  if (a instanceof ChaingwError) {
    if (a instanceof RpcError && chain.evm?.isRevert(a)) return { kind: "reverted", reason: a.rpcMessage };
    const e = readFailure(call, a, what, block);
    if (!(e instanceof StateUnavailableError)) throw e;
    return { kind: "unreadable", why: e.message };
  }
  const r = typeof a.result === "string" ? a.result.toLowerCase() : "";
  // the answer is one bytes4, returned ABI-encoded (left-aligned in a word); some wallets return 4 bytes bare
  if (r.slice(0, 10) === EIP1271_MAGIC && (r.length === 10 || /^0x1626ba7e0{56}$/.test(r)))
    return { kind: "magic" };
  return { kind: "other", value: r === "" || r === "0x" ? "nothing" : r.slice(0, 10) };
}

/**
 * EIP-1271's answer proves control only when the wallet tells signatures apart: the magic value for the
 * signature over the challenge, and no magic for a random challenge, a random signature or an all-zero one
 * (of the same length) at the same block. A wallet that approves any of those (one that says yes to
 * everything, an owner never set so an all-zero signature recovers to it, a contract whose fallback answers
 * any call with 0x1626ba7e) "accepts any signature: proves nothing".
 */
function judge1271(
  main: Answer,
  probes: Answer[],
  block: StateAt,
): Omit<SignatureJudgement, "address" | "format"> {
  if (main.kind === "reverted")
    return {
      valid: false,
      detail: `EIP-1271: the contract wallet reverted isValidSignature: ${main.reason}`,
    };
  if (main.kind === "unreadable")
    return {
      valid: false,
      cannotSay: true,
      detail: `EIP-1271: the wallet's answer cannot be read: ${main.why}`,
    };
  if (main.kind === "other")
    return {
      valid: false,
      detail: `EIP-1271: the contract wallet answered ${main.value}, not the magic value 0x1626ba7e`,
    };
  const approved = PROBES.filter((_, k) => probes[k]!.kind === "magic");
  if (approved.length > 0)
    return {
      valid: false,
      detail: `EIP-1271: the contract wallet accepts any signature: proves nothing (it also answered 0x1626ba7e for ${approved.join(" and ")} at ${blockText(block)})`,
    };
  const unreadable = probes.find((p) => p.kind === "unreadable");
  if (unreadable?.kind === "unreadable")
    return {
      valid: false,
      cannotSay: true,
      detail: `EIP-1271: the wallet answered 0x1626ba7e, but whether it refuses other signatures cannot be read: ${unreadable.why}`,
    };
  return {
    valid: true,
    detail:
      "EIP-1271: the contract wallet answered isValidSignature with 0x1626ba7e, and refused a random challenge, a random signature and an all-zero one at the same block",
  };
}

/** The ownership section: the signatures as judged, and per asset the total of the addresses proven. */
export function ownershipSection(
  proof: Pick<EvmProof, "assets" | "addresses">,
  lines: SignatureLine[],
  judged: SignatureJudgement[],
): EvmOwnership {
  const signatures: EvmSignature[] = judged.map((j, i) => ({
    address: j.address,
    signature: (lines[i] as SignatureLine).signature,
    valid: j.valid,
    format: j.format,
    detail: j.detail,
  }));
  return {
    signatures,
    proven: provenTotals(proof, new Set(judged.filter((j) => j.valid).map((j) => j.address))),
  };
}

/** Per asset, the sum of the balances of the proven addresses, re-derived from the balances. */
export function provenTotals(proof: Pick<EvmProof, "assets">, proven: Set<string>): EvmOwnership["proven"] {
  return proof.assets.map((a) => {
    const sum = a.balances.reduce((s, b) => (proven.has(b.address) ? s + BigInt(b.base_units) : s), 0n);
    return { asset: a.id, amount: formatUnits(sum, a.decimals ?? 0), base_units: sum.toString() };
  });
}
