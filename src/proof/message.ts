/**
 * Offline verification of a signed message for an address: the legacy signed-message format (Bitcoin Core's
 * signmessage, BIP-137 and the Electrum/Trezor segwit variants) and BIP-322 "simple" signatures for P2WPKH and
 * P2TR key-path outputs. Nothing here talks to a node: the address says which script to satisfy, the signature
 * says how.
 *
 * A signature that is read and does not verify is a result (`valid: false`, with the reason in `detail`); only
 * input that cannot be judged at all throws {@link ProofInputError}.
 */
import { schnorr } from "@noble/curves/secp256k1.js";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { base64 } from "@scure/base";
import { OutScript, RawTx, RawWitness, Script, SigHash, Transaction } from "@scure/btc-signer";
import { type Coin, coinOf, MESSAGE_COINS, sentenceList } from "../chains/coins.js";
import { accountFormatOf, verifyAccountMessage } from "./account-message.js";
import { type CoinId, coinsOf, decodeProofAddress, type ProofAddress } from "./address.js";
import { recoverKey, verifyDer } from "./curve.js";
import { ProofInputError } from "./errors.js";

export type SignatureFormat =
  | "legacy"
  | "bip322-simple"
  | "bip322-full"
  | "bip322-pof"
  | "eip191"
  | "tip191"
  | "eip1271";

export interface VerifyResult {
  valid: boolean;
  /** "bip322-full" / "bip322-pof" are recognised by their prefix and reported as not supported */
  format: SignatureFormat;
  /** the coin the address (or, where its prefix is shared, the verifying message magic) belongs to */
  chain?: CoinId;
  /** EVM and TRON forms: the address whose key made the signature */
  signer?: string;
  /** one sentence on what was checked and why it passed or failed */
  detail: string;
  /**
   * A form chaingw cannot judge (BIP-322 for a script other than single keys and standard multisig,
   * proof-of-funds, taproot script paths): the signature may well be correct, so a verifier says "cannot
   * say", never "does not hold". `valid` is false.
   */
  cannotJudge?: true;
}

/** What the caller knows besides the address: the coin of the node the proof was read from. */
export interface VerifyContext {
  /**
   * The coin whose message magic a legacy signature must use (a coin table id). Where an address's prefix is
   * shared (Bitcoin's and Litecoin's test networks), a signature made with another coin's magic proves
   * nothing for this one and is refused, saying so.
   */
  coin?: CoinId;
}

export { ProofInputError } from "./errors.js";

/** a coin's name and message magic, from the coin table */
const coinRow = (chain: CoinId): Coin => {
  const c = coinOf(chain);
  if (!c) throw new ProofInputError("address", `no coin "${chain}" in the coin table`);
  return c;
};
const coinName = (chain: CoinId): string => coinRow(chain).name;

/**
 * Verifies `signature` over `message` for `address`: Bitcoin and Litecoin addresses here, EVM (0x…) and TRON
 * (T…) addresses by src/proof/account-message.ts. Throws ProofInputError with `field` "address" (not an
 * address of Bitcoin or Litecoin) or "signature" (empty, not base64, or neither a 65-byte legacy signature nor a
 * witness stack).
 */
export function verifyMessage(
  address: string,
  signature: string,
  message: string,
  context: VerifyContext = {},
): VerifyResult {
  if (accountFormatOf(address)) return verifyAccountMessage(address, signature, message);
  const addr = decodeProofAddress(address);
  const sig = readSignature(signature);
  const chains = coinsOf(addr.networks);
  const chain = chains.length === 1 ? chains[0] : context.coin;
  switch (sig.form) {
    case "legacy":
      return verifyLegacy(addr, sig.bytes, message, context.coin);
    case "bip322-full":
      return { ...verifyFull(addr, sig.tx, message), chain };
    case "bip322-pof":
      return {
        valid: false,
        format: sig.form,
        chain,
        cannotJudge: true,
        detail: `BIP-322 proof-of-funds signatures ("pof" prefix) are not supported; "simple" ones, and "full" ones for standard multisig`,
      };
    default:
      return { ...verifySimple(addr, sig.witness, message, sig.prefixed), chain };
  }
}

type ReadSignature =
  | { form: "legacy"; bytes: Uint8Array }
  | { form: "bip322-simple"; witness: Uint8Array[]; prefixed: boolean }
  | { form: "bip322-full"; tx: Uint8Array }
  | { form: "bip322-pof" };

const badSig = (why: string): never => {
  throw new ProofInputError("signature", why);
};

function decode64(text: string, what: string): Uint8Array {
  try {
    return base64.decode(text);
  } catch {
    return badSig(`${what} is not base64`);
  }
}

/**
 * Tells the forms apart. BIP-322 (2026) prefixes the base64 text with three letters: "smp", "ful" or "pof".
 * Unprefixed text is a legacy signature when it is 65 bytes with a header of 27-42, otherwise a simple
 * signature of the draft era (which the BIP lets verifiers accept). The prefixes cannot be confused with
 * unprefixed text of either form: a legacy signature's base64 starts with G-K, and a witness stack whose
 * first byte decoded to "s", "f" or "p" would hold over a hundred items.
 */
function readSignature(text: string): ReadSignature {
  if (text.length === 0) return badSig("empty");
  const prefix = text.slice(0, 3);
  if (prefix === "ful") return { form: "bip322-full", tx: decode64(text.slice(3), `the text after "ful"`) };
  if (prefix === "pof") {
    decode64(text.slice(3), `the text after "pof"`);
    return { form: "bip322-pof" };
  }
  if (prefix === "smp")
    return {
      form: "bip322-simple",
      witness: witnessOf(decode64(text.slice(3), `the text after "smp"`)),
      prefixed: true,
    };
  const bytes = decode64(text, "signature");
  if (bytes.length === 65 && (bytes[0] as number) >= 27 && (bytes[0] as number) <= 42)
    return { form: "legacy", bytes };
  let witness: Uint8Array[];
  try {
    witness = RawWitness.decode(bytes);
  } catch {
    return badSig(
      bytes.length === 65
        ? `65 bytes with header ${bytes[0]}: not a legacy signature (headers 27-42) nor a witness stack`
        : `${bytes.length} bytes: neither a 65-byte legacy signature nor a consensus-encoded witness stack`,
    );
  }
  return { form: "bip322-simple", witness, prefixed: false };
}

function witnessOf(bytes: Uint8Array): Uint8Array[] {
  try {
    return RawWitness.decode(bytes);
  } catch {
    return badSig('the "smp" signature is not a consensus-encoded witness stack');
  }
}

export const hash160 = (b: Uint8Array): Uint8Array => ripemd160(sha256(b));
export const sha256d = (b: Uint8Array): Uint8Array => sha256(sha256(b));
export const equal = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Bitcoin's CompactSize, as the signed-message serialization uses it for both strings (and OKX's header). */
export function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >>> 8);
  return Uint8Array.of(0xfe, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
}

/** double-SHA256 of the CompactSize-prefixed magic and message (Bitcoin Core's MessageHash). */
export function legacyMessageHash(chain: CoinId, message: string): Uint8Array {
  const magic = utf8ToBytes(coinRow(chain).magic);
  const m = utf8ToBytes(message);
  return sha256d(concatBytes(compactSize(magic.length), magic, compactSize(m.length), m));
}

type HeaderKind = "p2pkh-uncompressed" | "p2pkh" | "p2sh-p2wpkh" | "p2wpkh";
const HEADER_NAME: Record<HeaderKind, string> = {
  "p2pkh-uncompressed": "P2PKH, uncompressed key",
  p2pkh: "P2PKH, compressed key",
  "p2sh-p2wpkh": "P2SH-P2WPKH",
  p2wpkh: "P2WPKH",
};

/** The key a legacy signature yields over `message` with `chain`'s magic, if any, as the address's hash form. */
function legacyTarget(
  addr: ProofAddress,
  sig: Uint8Array,
  message: string,
  chain: CoinId,
  kind: HeaderKind,
): Uint8Array | undefined {
  const recovery = ((sig[0] as number) - 27) & 3;
  const digest = legacyMessageHash(chain, message);
  const pub = recoverKey(sig.subarray(1), recovery, digest, kind !== "p2pkh-uncompressed");
  // no key for this hash: the signature is broken, or made over another message or magic
  if (!pub) return undefined;
  const keyHash = hash160(pub);
  return addr.kind === "p2sh" ? hash160(OutScript.encode({ type: "wpkh", hash: keyHash })) : keyHash;
}

function verifyLegacy(addr: ProofAddress, sig: Uint8Array, message: string, coin?: CoinId): VerifyResult {
  const header = sig[0] as number;
  // BIP-137: 27-30 uncompressed P2PKH, 31-34 compressed P2PKH, 35-38 P2SH-P2WPKH, 39-42 P2WPKH; recid in the low bits
  const kind: HeaderKind =
    header < 31 ? "p2pkh-uncompressed" : header < 35 ? "p2pkh" : header < 39 ? "p2sh-p2wpkh" : "p2wpkh";
  const shares = coinsOf(addr.networks);
  // the node's coin, when known, is the only magic that proves anything for its addresses
  const chains = coin !== undefined && shares.includes(coin) ? [coin] : shares;
  const only = chains.length === 1 ? chains[0] : undefined;
  const said = `header ${header} (${HEADER_NAME[kind]})`;
  const fail = (detail: string): VerifyResult => ({ valid: false, format: "legacy", chain: only, detail });

  if (addr.kind !== "p2pkh" && addr.kind !== "p2sh" && addr.kind !== "p2wpkh")
    return fail(`a legacy signature cannot prove a ${addr.kind.toUpperCase()} address; BIP-322 is needed`);
  // Which address types the header allows. Electrum signs segwit addresses with the compressed-P2PKH
  // header (31-34), so that header also stands for the segwit types of the same key.
  const allowed: Record<HeaderKind, ProofAddress["kind"][]> = {
    "p2pkh-uncompressed": ["p2pkh"],
    p2pkh: ["p2pkh", "p2wpkh", "p2sh"],
    "p2sh-p2wpkh": ["p2sh"],
    p2wpkh: ["p2wpkh"],
  };
  if (!allowed[kind].includes(addr.kind))
    return fail(`${said} does not fit a ${addr.kind.toUpperCase()} address`);

  const tried: string[] = [];
  for (const chain of chains) {
    tried.push(coinName(chain));
    const target = legacyTarget(addr, sig, message, chain, kind);
    if (!target || !equal(target, addr.hash)) continue;
    const electrum =
      kind === "p2pkh" && addr.kind !== "p2pkh"
        ? ", the compressed-P2PKH header Electrum uses for segwit addresses"
        : "";
    const shared =
      chains.length > 1
        ? `; the address prefix is shared by ${sentenceList(
            chains.map((c) => coinName(c)),
            "and",
          )}, the ${coinName(chain)} message magic verified`
        : "";
    return {
      valid: true,
      format: "legacy",
      chain,
      detail: `legacy signed message, ${said}${electrum}, ${coinName(chain)} message magic${shared}`,
    };
  }
  // made with another coin's magic by the address's key: named, and refused — it proves nothing for this coin
  const own = new Set(chains.map((c) => coinRow(c).magic));
  for (const other of MESSAGE_COINS) {
    if (own.has(other.magic)) continue;
    const target = legacyTarget(addr, sig, message, other.id, kind);
    if (target && equal(target, addr.hash))
      return fail(
        `legacy signature, ${said}: made with the ${other.name} message magic by this address's key; it proves nothing for a ${sentenceList(tried)} address (${sentenceList(tried, "and")} message magic expected)`,
      );
  }
  return fail(
    `legacy signature, ${said}: the key it yields over this message (${sentenceList(tried, "and")} message magic) is not the address's`,
  );
}

/** A standard k-of-n multisig script (OP_k <keys> OP_n OP_CHECKMULTISIG), or undefined. */
function multisigOf(script: Uint8Array): { m: number; pubkeys: Uint8Array[] } | undefined {
  try {
    const o = OutScript.decode(script);
    return o.type === "ms" ? { m: o.m, pubkeys: o.pubkeys } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * OP_CHECKMULTISIG's rule: the signatures in the order of the keys, each by a later key than the one before
 * (so k distinct keys); every signature strict DER, low S, SIGHASH_ALL. `digest` is the sighash.
 */
function checkMultisig(
  ms: { m: number; pubkeys: Uint8Array[] },
  sigs: Uint8Array[],
  digest: Uint8Array,
): string | undefined {
  if (sigs.length !== ms.m) return `${sigs.length} signatures for a ${ms.m}-of-${ms.pubkeys.length} script`;
  let k = 0;
  for (const [i, sig] of sigs.entries()) {
    if (sig.length < 9 || sig.length > 73)
      return `signature ${i + 1} is not a DER signature with a sighash byte`;
    if (sig[sig.length - 1] !== SigHash.ALL)
      return `signature ${i + 1} has sighash type ${sig[sig.length - 1]} (SIGHASH_ALL is required)`;
    const body = sig.subarray(0, -1);
    let found = false;
    while (k < ms.pubkeys.length && !found) {
      const pub = ms.pubkeys[k++] as Uint8Array;
      found = verifyDer(body, digest, pub);
    }
    if (!found)
      return `signature ${i + 1} verifies against none of the remaining keys of the ${ms.m}-of-${ms.pubkeys.length} script (another message, another key, or out of order)`;
  }
  return undefined;
}

/** The parts of to_sign a signature commits to, besides the spend itself. */
interface SpendShape {
  version: number;
  lockTime: number;
  sequence: number;
  scriptSig: Uint8Array;
  witness: Uint8Array[];
}

/**
 * BIP-322 "full" signatures: the base64 text is the whole signed to_sign transaction. It must spend
 * to_spend:0 of this address and message as its one input, with one OP_RETURN output of 0; version, lock
 * time and sequence are the signer's (BIP-322 lets them be "as appropriate", e.g. 2 / 2016 for time locks)
 * and enter the sighash. Supported spends: standard k-of-n multisig (see verifyMultisig); other scripts are
 * said to be not supported.
 */
function verifyFull(addr: ProofAddress, bytes: Uint8Array, message: string): Omit<VerifyResult, "chain"> {
  const form = 'BIP-322 full signature ("ful")';
  const fail = (why: string, cannotJudge?: true) => ({
    valid: false,
    format: "bip322-full" as const,
    detail: `${form}: ${why}`,
    ...(cannotJudge ? { cannotJudge } : {}),
  });
  let tx: ReturnType<typeof RawTx.decode>;
  try {
    tx = RawTx.decode(bytes);
  } catch {
    throw new ProofInputError("signature", 'the "ful" signature is not a consensus-encoded transaction');
  }
  const input = tx.inputs[0];
  const output = tx.outputs[0];
  if (
    tx.inputs.length !== 1 ||
    tx.outputs.length !== 1 ||
    !input ||
    !output ||
    input.index !== 0 ||
    output.amount !== 0n ||
    !equal(output.script, Script.encode(["RETURN"]))
  )
    return fail(
      "the transaction is not BIP-322's to_sign (one input spending to_spend:0, one OP_RETURN output of 0); proof-of-funds inputs are not supported",
    );
  const { toSpendId } = bip322Transactions(addr.scriptPubKey, message);
  if (bytesToHex(input.txid) !== toSpendId)
    return fail("the transaction spends another to_spend: it was made for another message or address");
  const why = verifyMultisig(addr, message, {
    version: tx.version,
    lockTime: tx.lockTime,
    sequence: input.sequence,
    scriptSig: input.finalScriptSig,
    witness: tx.witnesses?.[0] ?? [],
  });
  return "valid" in why
    ? { ...why, format: "bip322-full", detail: `${form}, ${why.detail}` }
    : fail(why.fail, why.cannotJudge);
}

/**
 * A standard k-of-n multisig spend of to_spend:0 for `addr`: P2WSH (witness: empty, k signatures, the
 * script), P2SH-P2WSH (the same, the scriptSig pushing the witness program) or P2SH (scriptSig: OP_0, k
 * signatures, the script). Each signature is checked against the BIP-143 (segwit) or legacy sighash of
 * to_sign with the shape's version, lock time and sequence.
 */
function verifyMultisig(
  addr: ProofAddress,
  message: string,
  shape: SpendShape,
): { valid: true; detail: string } | { fail: string; cannotJudge?: true } {
  const { toSpendId } = bip322Transactions(addr.scriptPubKey, message);
  const txid = hexToBytes(toSpendId);
  const opReturn = Script.encode(["RETURN"]);
  const { witness, scriptSig } = shape;
  // a form BIP-322 defines that chaingw does not evaluate: the signature may be right (cannot judge)
  const unjudged = (fail: string) => ({ fail, cannotJudge: true as const });
  if (addr.kind !== "p2wsh" && addr.kind !== "p2sh")
    return unjudged(
      `only standard multisig (P2WSH, P2SH-P2WSH, P2SH) is judged in this form; a ${addr.kind.toUpperCase()} address is signed with the simple or legacy format`,
    );
  const pushed = Script.decode(scriptSig);
  const pushes = pushed.every((x) => x instanceof Uint8Array || x === 0 || x === "OP_0")
    ? pushed.map((x) => (x instanceof Uint8Array ? x : new Uint8Array()))
    : undefined;
  let witnessScript: Uint8Array | undefined;
  let kind = "P2WSH";
  if (addr.kind === "p2wsh") {
    if (scriptSig.length) return { fail: "a P2WSH spend has an empty scriptSig" };
    witnessScript = witness[witness.length - 1];
    if (!witnessScript || !equal(sha256(witnessScript), addr.hash))
      return { fail: "the witness script is not the script of this address" };
  } else if (witness.length) {
    // P2SH-P2WSH: the scriptSig pushes the witness program, whose hash160 is the address's
    const program = pushes?.length === 1 ? pushes[0] : undefined;
    if (!program || !equal(hash160(program), addr.hash))
      return { fail: "the scriptSig does not push the redeem script of this address" };
    kind = "P2SH-P2WSH";
    witnessScript = witness[witness.length - 1];
    if (program.length !== 34 || program[0] !== 0 || program[1] !== 32)
      return unjudged("P2SH scripts other than P2SH-P2WSH multisig and P2SH multisig are not supported");
    if (!witnessScript || !equal(sha256(witnessScript), program.subarray(2)))
      return { fail: "the witness script is not the script of this address" };
  }
  const done = (ms: { m: number; pubkeys: Uint8Array[] }, k: string, why: string | undefined) =>
    why
      ? { fail: `${k} ${ms.m}-of-${ms.pubkeys.length}: ${why}` }
      : {
          valid: true as const,
          detail: `${k} ${ms.m}-of-${ms.pubkeys.length} multisig, ${ms.m} ECDSA signatures by distinct keys over the to_sign transaction`,
        };
  if (witnessScript) {
    const ms = multisigOf(witnessScript);
    if (!ms) return unjudged(`${kind} scripts other than standard k-of-n multisig are not supported`);
    const items = witness.slice(0, -1);
    if ((items[0]?.length ?? -1) !== 0)
      return { fail: "the first witness item must be empty (the dummy of OP_CHECKMULTISIG, NULLDUMMY)" };
    if (ms.pubkeys.some((p) => p.length !== 33))
      return { fail: "segwit multisig needs compressed keys (33 bytes)" };
    const toSign = new Transaction({
      version: shape.version,
      lockTime: shape.lockTime,
      allowUnknownOutputs: true,
    });
    toSign.addInput({
      txid,
      index: 0,
      sequence: shape.sequence,
      witnessUtxo: { script: addr.scriptPubKey, amount: 0n },
    });
    toSign.addOutput({ script: opReturn, amount: 0n });
    const digest = toSign.preimageWitnessV0(0, witnessScript, SigHash.ALL, 0n);
    return done(ms, kind, checkMultisig(ms, items.slice(1), digest));
  }
  // P2SH multisig: OP_0 <sigs...> <redeem script>, the legacy sighash with the redeem script as script code
  const redeem = pushes?.[pushes.length - 1];
  if (!pushes || !redeem || !equal(hash160(redeem), addr.hash))
    return { fail: "the scriptSig does not end with the redeem script of this address" };
  const ms = multisigOf(redeem);
  if (!ms) return unjudged("P2SH scripts other than standard k-of-n multisig are not supported");
  if ((pushes[0]?.length ?? -1) !== 0)
    return { fail: "the scriptSig must start with OP_0 (the dummy of OP_CHECKMULTISIG, NULLDUMMY)" };
  // the legacy sighash: to_sign with the script code in the input's place, the sighash type appended
  const unsigned = RawTx.encode({
    version: shape.version,
    segwitFlag: false,
    inputs: [{ txid, index: 0, finalScriptSig: redeem, sequence: shape.sequence }],
    outputs: [{ amount: 0n, script: opReturn }],
    lockTime: shape.lockTime,
  });
  const digest = sha256d(concatBytes(unsigned, Uint8Array.of(SigHash.ALL, 0, 0, 0)));
  return done(ms, "P2SH", checkMultisig(ms, pushes.slice(1, -1), digest));
}

/** BIP-322's message_hash: the BIP-340 tagged hash "BIP0322-signed-message" of the message bytes. */
export function bip322MessageHash(message: string): Uint8Array {
  return schnorr.utils.taggedHash("BIP0322-signed-message", utf8ToBytes(message));
}

/**
 * BIP-322's virtual transactions for `scriptPubKey` and `message`, as a simple signature leaves them:
 * `to_spend` (its txid, display order, and its bytes) and the unsigned `to_sign` spending its output 0.
 */
export function bip322Transactions(
  scriptPubKey: Uint8Array,
  message: string,
): { toSpendId: string; toSign: Transaction; toSpend: Uint8Array } {
  const toSpend = RawTx.encode({
    version: 0,
    segwitFlag: false,
    inputs: [
      {
        txid: new Uint8Array(32),
        index: 0xffffffff,
        finalScriptSig: Script.encode(["OP_0", bip322MessageHash(message)]),
        sequence: 0,
      },
    ],
    outputs: [{ amount: 0n, script: scriptPubKey }],
    lockTime: 0,
  });
  const txid = sha256d(toSpend).reverse();
  const toSign = new Transaction({ version: 0, lockTime: 0, allowUnknownOutputs: true });
  toSign.addInput({ txid, index: 0, sequence: 0, witnessUtxo: { script: scriptPubKey, amount: 0n } });
  toSign.addOutput({ script: Script.encode(["RETURN"]), amount: 0n });
  return { toSpendId: bytesToHex(txid), toSign, toSpend };
}

function verifySimple(
  addr: ProofAddress,
  witness: Uint8Array[],
  message: string,
  prefixed: boolean,
): Omit<VerifyResult, "chain"> {
  const form = prefixed ? 'BIP-322 simple signature ("smp")' : "BIP-322 simple signature (unprefixed)";
  const fail = (why: string, cannotJudge?: true) => ({
    valid: false,
    format: "bip322-simple" as const,
    detail: `${form}: ${why}`,
    ...(cannotJudge ? { cannotJudge } : {}),
  });
  if (addr.kind === "p2pkh" || addr.kind === "p2sh")
    return fail(
      `the simple format is defined for native segwit addresses only; ${addr.kind === "p2sh" ? 'P2SH-wrapped scripts need the full format ("ful", supported for standard multisig)' : "P2PKH needs a legacy or full signature"}`,
    );
  if (addr.kind === "p2wsh") {
    // BIP-322 simple covers any native segwit script; chaingw judges standard k-of-n multisig
    const r = verifyMultisig(addr, message, {
      version: 0,
      lockTime: 0,
      sequence: 0,
      scriptSig: new Uint8Array(),
      witness,
    });
    return "valid" in r
      ? { valid: true, format: "bip322-simple", detail: `${form}, ${r.detail}` }
      : fail(r.fail, r.cannotJudge);
  }
  if (addr.kind === "witness")
    return fail(`witness version ${addr.witnessVersion} outputs are not supported`, true);
  if (witness.length === 0) return fail("empty witness stack");
  const { toSign } = bip322Transactions(addr.scriptPubKey, message);

  if (addr.kind === "p2wpkh") {
    if (witness.length !== 2) return fail(`a P2WPKH witness has 2 items, this one ${witness.length}`);
    const [sig, pub] = witness as [Uint8Array, Uint8Array];
    if (pub.length !== 33 || (pub[0] !== 2 && pub[0] !== 3))
      return fail("the public key is not a compressed key (segwit v0 requires one)");
    if (!equal(hash160(pub), addr.hash))
      return fail("the public key in the witness is not the address's key");
    if (sig.length < 9 || sig.length > 73)
      return fail("the signature is not a DER signature with a sighash byte");
    if (sig[sig.length - 1] !== SigHash.ALL)
      return fail(`sighash type ${sig[sig.length - 1]} (BIP-322 requires SIGHASH_ALL)`);
    // BIP-143: the script code of P2WPKH is the P2PKH script of the same key hash; the spent amount is 0
    const digest = toSign.preimageWitnessV0(
      0,
      OutScript.encode({ type: "pkh", hash: addr.hash }),
      SigHash.ALL,
      0n,
    );
    // strict DER and low S, as BIP-322's required rules (STRICTENC, LOW_S) say
    const ok = verifyDer(sig.subarray(0, -1), digest, pub);
    return ok
      ? {
          valid: true,
          format: "bip322-simple",
          detail: `${form}, P2WPKH, ECDSA over the to_sign transaction`,
        }
      : fail("the ECDSA signature does not verify for this message and address");
  }

  // P2TR: a key-path spend is one item, the 64-byte signature (SIGHASH_DEFAULT) or 65 with SIGHASH_ALL
  const last = witness[witness.length - 1] as Uint8Array;
  if (witness.length >= 2 && last[0] === 0x50)
    return fail("witnesses with a taproot annex are not supported", true);
  // a signature and a compressed key: a P2WPKH signature, not a taproot spend of any kind
  if (witness.length === 2 && witness[1]?.length === 33 && (witness[1][0] === 2 || witness[1][0] === 3))
    return fail(
      "a P2WPKH signature (a signature and a public key) made for a native segwit v0 address; a P2TR address is signed with one 64- or 65-byte Schnorr signature",
    );
  if (witness.length !== 1) return fail("taproot script-path spends are not supported (key path only)", true);
  const sig = witness[0] as Uint8Array;
  if (sig.length !== 64 && sig.length !== 65)
    return fail(`a ${sig.length}-byte taproot signature (64 or 65 expected)`);
  const hashType = sig.length === 65 ? (sig[64] as number) : SigHash.DEFAULT;
  // BIP-341 forbids an explicit 0x00; BIP-322 allows only DEFAULT or ALL
  if (sig.length === 65 && hashType !== SigHash.ALL)
    return fail(`sighash type ${hashType} (BIP-322 requires SIGHASH_DEFAULT or SIGHASH_ALL)`);
  const digest = toSign.preimageWitnessV1(0, [addr.scriptPubKey], hashType, [0n]);
  const ok = schnorr.verify(sig.subarray(0, 64), digest, addr.hash);
  return ok
    ? {
        valid: true,
        format: "bip322-simple",
        detail: `${form}, P2TR key path, Schnorr (${hashType === SigHash.DEFAULT ? "SIGHASH_DEFAULT" : "SIGHASH_ALL"}) over the to_sign transaction`,
      }
    : fail("the Schnorr signature does not verify for this message and the address's output key");
}
