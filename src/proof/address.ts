/**
 * Addresses of the chains whose signed messages chaingw verifies (Bitcoin and Litecoin, each on mainnet, testnet
 * and regtest), decoded to the script they pay and the networks that print them. Checksums and witness rules are
 * the reserves codec's; this adds what it leaves out on purpose: which prefixes belong to which network.
 */
import { OutScript } from "@scure/btc-signer";
import { base58CheckDecode, bech32Decode, bech32Program } from "../chains/codec.js";
import { ProofInputError } from "./errors.js";

export type Chain = "bitcoin" | "litecoin";

export interface Network {
  chain: Chain;
  /** Bitcoin's "test" takes in signet and testnet4, which share testnet3's prefixes */
  net: "main" | "test" | "regtest";
}

export type AddressKind = "p2pkh" | "p2sh" | "p2wpkh" | "p2wsh" | "p2tr" | "witness";

export interface ProofAddress {
  /** as given; bech32 lower-cased */
  address: string;
  kind: AddressKind;
  /** hash160 of the key or script for p2pkh / p2sh, the witness program otherwise */
  hash: Uint8Array;
  /** -1 for base58 addresses */
  witnessVersion: number;
  /** every network whose nodes print this address; more than one chain where the prefixes are shared */
  networks: Network[];
  scriptPubKey: Uint8Array;
}

const net = (chain: Chain, n: Network["net"]): Network => ({ chain, net: n });

const HRP: Record<string, Network> = {
  bc: net("bitcoin", "main"),
  tb: net("bitcoin", "test"),
  bcrt: net("bitcoin", "regtest"),
  ltc: net("litecoin", "main"),
  tltc: net("litecoin", "test"),
  rltc: net("litecoin", "regtest"),
};

const TESTS: Network[] = [
  net("bitcoin", "test"),
  net("bitcoin", "regtest"),
  net("litecoin", "test"),
  net("litecoin", "regtest"),
];

/**
 * base58 version bytes (chainparams.cpp of each chain). Shared by both chains: 5 (Litecoin mainnet still accepts
 * the Bitcoin-style "3" P2SH next to its own "M"), 111 and 196 (the test networks of both). Litecoin's own:
 * 48 "L", 50 "M", 58 "Q" (test and regtest).
 */
const BASE58: Record<number, { kind: "p2pkh" | "p2sh"; networks: Network[] }> = {
  0: { kind: "p2pkh", networks: [net("bitcoin", "main")] },
  5: { kind: "p2sh", networks: [net("bitcoin", "main"), net("litecoin", "main")] },
  48: { kind: "p2pkh", networks: [net("litecoin", "main")] },
  50: { kind: "p2sh", networks: [net("litecoin", "main")] },
  111: { kind: "p2pkh", networks: TESTS },
  196: { kind: "p2sh", networks: TESTS },
  58: { kind: "p2sh", networks: [net("litecoin", "test"), net("litecoin", "regtest")] },
};

const bad = (why: string): never => {
  throw new ProofInputError("address", why);
};

/** Decodes `text`; throws ProofInputError("address") for anything that is not an address of a known network. */
export function decodeProofAddress(text: string): ProofAddress {
  if (text.length === 0) bad("empty");
  if (text.length > 90 || /[^\x21-\x7e]/.test(text)) bad("not an address (too long, spaces or non-ASCII)");
  const lower = text.toLowerCase();
  const sep = lower.lastIndexOf("1");
  const hrp = sep > 0 ? lower.slice(0, sep) : "";
  if (hrp in HRP && (text === lower || text === text.toUpperCase())) return segwit(lower, hrp);
  return legacy(text);
}

function segwit(s: string, hrp: string): ProofAddress {
  const dec = bech32Decode(s, 90);
  if (!dec) return bad("bad bech32/bech32m checksum or characters");
  const version = dec.first;
  const length = dec.restBytes;
  if (version < 0 || version > 16) bad("bad witness version");
  if (length === undefined || length < 2 || length > 40) bad("bad witness program length or padding");
  if (version === 0 && dec.variant !== "bech32") bad("witness v0 address must use bech32, not bech32m");
  if (version > 0 && dec.variant !== "bech32m") bad(`witness v${version} address must use bech32m (BIP350)`);
  if (version === 0 && length !== 20 && length !== 32) bad(`witness v0 program of ${length} bytes`);
  const program = bech32Program(s);
  const networks = [HRP[hrp] as Network];
  const base = { address: s, hash: program, witnessVersion: version, networks };
  if (version === 0 && length === 20)
    return { ...base, kind: "p2wpkh", scriptPubKey: OutScript.encode({ type: "wpkh", hash: program }) };
  if (version === 0)
    return { ...base, kind: "p2wsh", scriptPubKey: OutScript.encode({ type: "wsh", hash: program }) };
  if (version === 1 && length === 32)
    return { ...base, kind: "p2tr", scriptPubKey: OutScript.encode({ type: "tr", pubkey: program }) };
  // a future witness version: a valid address whose script no signature form here can satisfy
  // (OP_1..OP_16 are 0x51..0x60, and a program of 2..40 bytes is one direct push)
  const scriptPubKey = Uint8Array.of(0x50 + version, program.length, ...program);
  return { ...base, kind: "witness", scriptPubKey };
}

function legacy(text: string): ProofAddress {
  const r = base58CheckDecode(text);
  if (!r.ok)
    return bad(
      r.why === "checksum" ? "bad base58check checksum" : "neither bech32 of a known prefix nor base58",
    );
  const p = r.payload;
  if (p.length !== 21) bad(`base58 payload of ${p.length} bytes (21 expected: version + hash160)`);
  const known = BASE58[p[0] as number];
  if (!known) return bad(`base58 version ${p[0]} belongs to no Bitcoin or Litecoin network`);
  const hash = p.slice(1);
  const scriptPubKey =
    known.kind === "p2pkh" ? OutScript.encode({ type: "pkh", hash }) : OutScript.encode({ type: "sh", hash });
  return {
    address: text,
    kind: known.kind,
    hash,
    witnessVersion: -1,
    networks: known.networks,
    scriptPubKey,
  };
}

/** The chains among `networks`, each once, Bitcoin first. */
export function chainsOf(networks: readonly Network[]): Chain[] {
  return (["bitcoin", "litecoin"] as const).filter((c) => networks.some((n) => n.chain === c));
}
