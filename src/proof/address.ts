/**
 * Addresses of the coins whose signed messages chaingw verifies (the rows of `chains/coins.ts` with
 * `uses.messages`: Bitcoin and Litecoin), decoded to the script they pay and the networks that print them.
 * Checksums and witness rules are the one decoder's (`chains/address.ts`); this adds which coin and network
 * a prefix belongs to, from the coin table.
 */
import { OutScript } from "@scure/btc-signer";
import { type AddressPayload, checkAddress, type ParsedAddress, payloadOf } from "../chains/address.js";
import {
  MESSAGE_COIN_NAMES,
  MESSAGE_COINS,
  type NetworkName,
  networksOfPrefix,
  sentenceList,
} from "../chains/coins.js";
import { ProofInputError } from "./errors.js";

/** A coin's id in the coin table ("bitcoin", "litecoin"). */
export type CoinId = string;

export interface Network {
  /** the coin's id (the field's name is older than the word "coin") */
  chain: CoinId;
  /** the coin's network; Bitcoin's "test" takes in signet and testnet4, which share testnet3's prefixes */
  net: NetworkName;
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
  /** every network whose nodes print this address; more than one coin where the prefixes are shared */
  networks: Network[];
  scriptPubKey: Uint8Array;
}

const NO_NETWORK = `belongs to no ${MESSAGE_COIN_NAMES} network`;
/** the message coins that print no segwit address on any network (Dogecoin), said beside an unknown bech32 prefix */
const NO_SEGWIT = MESSAGE_COINS.filter((c) => !Object.values(c.networks).some((n) => n?.hrp));
const NO_BECH32 = NO_SEGWIT.length
  ? `; ${sentenceList(
      NO_SEGWIT.map((c) => c.name),
      "and",
    )} ${NO_SEGWIT.length > 1 ? "have" : "has"} no bech32 addresses`
  : "";

/** The message coins' networks of a prefix, signet counted as "test" (the same prefixes), each once. */
function networksOf(prefix: string): Network[] {
  const out: Network[] = [];
  for (const n of networksOfPrefix(prefix)) {
    if (!n.coin.uses.messages) continue;
    const net = n.network === "signet" ? "test" : n.network;
    if (!out.some((o) => o.chain === n.coin.id && o.net === net)) out.push({ chain: n.coin.id, net });
  }
  return out;
}

const bad = (why: string): never => {
  throw new ProofInputError("address", why);
};

/** Decodes `text`; throws ProofInputError("address") for anything that is not an address of a known network. */
export function decodeProofAddress(text: string): ProofAddress {
  const r = checkAddress(text);
  if (!r.ok) return bad(r.why);
  const networks = networksOf(r.value.prefix);
  if (r.value.witnessVersion >= 0) {
    if (networks.length === 0)
      bad(
        `neither bech32 of a known prefix (${r.value.prefix.slice(4)} ${NO_NETWORK}${NO_BECH32}) nor base58`,
      );
    return segwit(r.value, networks);
  }
  if (networks.length === 0) bad(`base58 version ${r.value.prefix.slice(7)} ${NO_NETWORK}`);
  return legacy(r.value, networks);
}

function segwit(a: ParsedAddress, networks: Network[]): ProofAddress {
  const p = payloadOf(a) as Extract<AddressPayload, { program: Uint8Array }>;
  const { program, kind, witnessVersion } = p;
  const base = { address: a.address, hash: program, witnessVersion, networks, kind };
  switch (kind) {
    case "p2wpkh":
      return { ...base, scriptPubKey: OutScript.encode({ type: "wpkh", hash: program }) };
    case "p2wsh":
      return { ...base, scriptPubKey: OutScript.encode({ type: "wsh", hash: program }) };
    case "p2tr":
      return { ...base, scriptPubKey: OutScript.encode({ type: "tr", pubkey: program }) };
    default:
      // a future witness version: a valid address whose script no signature form here can satisfy
      // (OP_1..OP_16 are 0x51..0x60, and a program of 2..40 bytes is one direct push)
      return { ...base, scriptPubKey: Uint8Array.of(0x50 + witnessVersion, program.length, ...program) };
  }
}

function legacy(a: ParsedAddress, networks: Network[]): ProofAddress {
  const { version, hash } = payloadOf(a) as Extract<AddressPayload, { hash: Uint8Array }>;
  // the version is a P2PKH one on every network that prints it, or a P2SH one on every one (the table's test)
  const first = networksOfPrefix(a.prefix).find((n) => n.coin.uses.messages);
  const kind = first?.params.base58.p2pkh === version ? "p2pkh" : "p2sh";
  const scriptPubKey =
    kind === "p2pkh" ? OutScript.encode({ type: "pkh", hash }) : OutScript.encode({ type: "sh", hash });
  return { address: a.address, kind, hash, witnessVersion: -1, networks, scriptPubKey };
}

/** The coins among `networks`, each once, in the coin table's order (Bitcoin first). */
export function coinsOf(networks: readonly Network[]): CoinId[] {
  return MESSAGE_COINS.filter((c) => networks.some((n) => n.chain === c.id)).map((c) => c.id);
}
