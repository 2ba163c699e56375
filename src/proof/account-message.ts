/**
 * Signed messages of account chains: EIP-191 `personal_sign` for EVM addresses (what `cast wallet sign`,
 * MetaMask and ethers' signMessage make) and TRON's TIP-191 form (TronWeb's `signMessageV2`, the
 * "\x19TRON Signed Message:\n" prefix) for base58 `T...` addresses. Both are a 65-byte r‖s‖v secp256k1
 * signature in hex over keccak256(prefix ‖ decimal byte length ‖ message); the signer is the key recovered
 * from it. Nothing here talks to a node: contract wallets (EIP-1271, asked of a node) are judged by
 * src/reserves/evm/ownership.ts.
 *
 * Not supported, said plainly: EIP-712 typed data, the older TRON `signMessage` (V1, over hex data), and
 * signatures over raw bytes (a message is UTF-8 text, as the challenge is).
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { hex20ToTron, looksLikeTronBase58, tronToHex20 } from "../chains/tron.js";
import { recoverKey } from "./curve.js";
import { ProofInputError } from "./errors.js";
import { accountHexOfKey } from "./keccak.js";

export type AccountFormat = "eip191" | "tip191";

export interface AccountVerifyResult {
  valid: boolean;
  format: AccountFormat;
  /** the address the signature's key belongs to, in the address's own form (0x… or T…) */
  signer?: string;
  detail: string;
}

const PREFIX: Record<AccountFormat, string> = {
  eip191: "\x19Ethereum Signed Message:\n",
  tip191: "\x19TRON Signed Message:\n",
};
const NAME: Record<AccountFormat, string> = {
  eip191: "EIP-191 personal_sign",
  tip191: "TRON TIP-191 (signMessageV2)",
};

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * The form an address of an account chain is signed in, by how it is written: a 0x address EIP-191, a
 * T-address TIP-191; undefined when it is neither.
 */
export function accountFormatOf(address: string): AccountFormat | undefined {
  if (EVM_ADDRESS.test(address)) return "eip191";
  if (looksLikeTronBase58(address)) return "tip191";
  return undefined;
}

/** keccak256(prefix ‖ byte length in decimal ‖ message): the digest each form signs. */
export function accountMessageHash(format: AccountFormat, message: string): Uint8Array {
  const m = utf8ToBytes(message);
  return keccak_256(concatBytes(utf8ToBytes(`${PREFIX[format]}${m.length}`), m));
}

/** The 20-byte account of an uncompressed public key: the last 20 bytes of keccak256 of its X‖Y. */
const accountOf = (pub: Uint8Array): string => `0x${accountHexOfKey(pub)}`;

/** Reads a 65-byte r‖s‖v hex signature; v may be 27/28 or 0/1. Throws ProofInputError("signature"). */
export function readAccountSignature(text: string): { compact: Uint8Array; recovery: number } {
  const hex = text.startsWith("0x") || text.startsWith("0X") ? text.slice(2) : text;
  if (!/^[0-9a-fA-F]*$/.test(hex))
    throw new ProofInputError("signature", "an EVM or TRON signature is hex (0x + 130 hex digits)");
  if (hex.length !== 130)
    throw new ProofInputError(
      "signature",
      `${hex.length / 2} bytes: an EVM or TRON signature is 65 bytes (r ‖ s ‖ v, 130 hex digits)`,
    );
  const bytes = Uint8Array.from(Buffer.from(hex, "hex"));
  const v = bytes[64] as number;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1)
    throw new ProofInputError("signature", `v is ${v}: expected 27 or 28 (or 0 or 1)`);
  return { compact: bytes.subarray(0, 64), recovery };
}

/** The account that signed `message` in `format`, or undefined when no key comes out. */
export function recoverAccount(
  format: AccountFormat,
  sig: { compact: Uint8Array; recovery: number },
  message: string,
): string | undefined {
  const pub = recoverKey(sig.compact, sig.recovery, accountMessageHash(format, message), false);
  return pub && accountOf(pub);
}

/**
 * Verifies an EIP-191 signature for a 0x address or a TIP-191 one for a T-address. A signature of the other
 * chain's form by the right key is refused and named as such (an Ethereum-prefixed signature given for a
 * TRON address proves nothing on TRON). Throws ProofInputError for an address or signature that cannot be
 * read at all.
 */
export function verifyAccountMessage(
  address: string,
  signature: string,
  message: string,
): AccountVerifyResult {
  const format = accountFormatOf(address);
  if (!format)
    throw new ProofInputError("address", `${JSON.stringify(address)} is not an EVM or TRON address`);
  let hex20: string;
  try {
    hex20 = format === "eip191" ? address.toLowerCase() : tronToHex20(address);
  } catch (e) {
    throw new ProofInputError("address", (e as Error).message);
  }
  return verifyAccountSignature(format, hex20, signature, message);
}

/**
 * The same for a 20-byte account (0x + 40 lowercase hex) whose chain signs in `format`: EVM chains EIP-191,
 * TRON TIP-191, whatever form the address was written in.
 */
export function verifyAccountSignature(
  format: AccountFormat,
  hex20: string,
  signature: string,
  message: string,
): AccountVerifyResult {
  const other: AccountFormat = format === "eip191" ? "tip191" : "eip191";
  const tron = format === "tip191";
  const sig = readAccountSignature(signature);
  const shown = (hex: string) => (tron ? hex20ToTron(hex) : hex);
  const signer = recoverAccount(format, sig, message);
  if (signer === hex20)
    return { valid: true, format, signer: shown(signer), detail: `${NAME[format]}, secp256k1 key recovered` };
  if (recoverAccount(other, sig, message) === hex20)
    return {
      valid: false,
      format,
      detail: `made with the ${NAME[other]} prefix by this address's key: ${tron ? "an EVM" : "a TRON"} signature proves nothing for ${tron ? "a TRON" : "an EVM"} address; sign with ${tron ? "TronWeb's signMessageV2" : "EIP-191 (cast wallet sign)"}`,
    };
  return {
    valid: false,
    format,
    ...(signer ? { signer: shown(signer) } : {}),
    detail: signer
      ? `${NAME[format]}: the key it yields over this message is ${shown(signer)}, not the address's (another key, or another message)`
      : `${NAME[format]}: no key can be recovered from this signature`,
  };
}
