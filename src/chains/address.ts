/**
 * The one address decoder of the UTXO coins: the base58check checksum, the bech32 / bech32m checksum with the
 * witness-version rules of BIP173/BIP350, the prefix an address carries, and what the coin table
 * (`coins.ts`) knows of that prefix. Address lists (`reserves/utxo/input.ts`) take any prefix and leave the
 * network to the node, one representative per prefix; proof addresses and signed messages
 * (`proof/address.ts`) take only the prefixes of the coins whose messages chaingw reads.
 */
import { base58CheckDecode, bech32Decode, bech32Program } from "./codec.js";
import { COIN_NETWORKS, prefixesOf } from "./coins.js";

export interface ParsedAddress {
  /** the address as it will be sent (bech32 lower-cased; base58 as given) */
  address: string;
  /**
   * `hrp:<hrp>` or `base58:<version byte>`: addresses sharing it share a network (describePrefix names it,
   * coins.ts's networksOfPrefix says whose it is)
   */
  prefix: string;
  /** the witness version of a bech32 address; -1 for base58 */
  witnessVersion: number;
}

export type AddressCheck = { ok: true; value: ParsedAddress } | { ok: false; why: string };

/** Checks one address text; `why` is a short reason fit for "line N: <text>: <why>". */
export function checkAddress(text: string): AddressCheck {
  // the common case first, without the classifying below: a valid lower-case bech32 (as nodes print them)
  const c0 = text.charCodeAt(0);
  if (c0 >= 97 && c0 <= 122 && text.length <= 90) {
    const r = checkBech32(text);
    if (r.ok && ONE_CASE_HRP.test(r.value.prefix)) return r;
  }
  if (text.length === 0) return { ok: false, why: "empty" };
  if (text.length > 120) return { ok: false, why: "too long for an address" };
  if (/[^\x21-\x7e]/.test(text)) return { ok: false, why: "contains spaces or non-ASCII characters" };
  // bech32 strings contain the separator "1" after a human-readable part and use one case throughout
  const sep = text.lastIndexOf("1");
  const looksBech32 = sep >= 1 && /^[a-z0-9]+$|^[A-Z0-9]+$/.test(text) && /^[a-zA-Z]/.test(text);
  if (looksBech32 && text.length - sep - 1 >= 6) {
    const r = checkBech32(text);
    if (r.ok) return r;
    // an all-one-case text with a "1" may still be base58; if that fails too, the bech32 reason is the useful one
    const b = checkBase58(text);
    return b.ok ? b : r;
  }
  return checkBase58(text);
}

const ONE_CASE_HRP = /^hrp:[a-z0-9]+$/;
/** one string per prefix seen, not one per address */
const hrpPrefixes = new Map<string, string>();
const hrpPrefix = (hrp: string): string => {
  let p = hrpPrefixes.get(hrp);
  if (p === undefined) {
    p = `hrp:${hrp}`;
    hrpPrefixes.set(hrp, p);
  }
  return p;
};

function checkBech32(text: string): AddressCheck {
  const c0 = text.charCodeAt(0);
  const lower = c0 >= 65 && c0 <= 90 ? text.toLowerCase() : text;
  const dec = bech32Decode(lower, 90);
  if (!dec) return { ok: false, why: "bad bech32/bech32m checksum or characters" };
  const version = dec.first;
  if (version < 0 || version > 16) return { ok: false, why: "bad witness version" };
  const program = dec.restBytes;
  if (program === undefined) return { ok: false, why: "bad witness program padding" };
  if (program < 2 || program > 40)
    return { ok: false, why: `witness program of ${program} bytes (2 to 40 allowed)` };
  if (version === 0) {
    if (dec.variant !== "bech32")
      return { ok: false, why: "witness v0 address must use bech32, not bech32m" };
    if (program !== 20 && program !== 32)
      return { ok: false, why: `witness v0 program of ${program} bytes (20 or 32 allowed)` };
  } else if (dec.variant !== "bech32m") {
    return { ok: false, why: `witness v${version} address must use bech32m (BIP350), not bech32` };
  }
  return { ok: true, value: { address: lower, prefix: hrpPrefix(dec.hrp), witnessVersion: version } };
}

function checkBase58(text: string): AddressCheck {
  const r = base58CheckDecode(text);
  if (!r.ok)
    return {
      ok: false,
      why:
        r.why === "checksum"
          ? "bad base58check checksum"
          : "not a bech32 address and not base58 (characters outside the alphabet)",
    };
  const payload = r.payload;
  // one version byte and a 20-byte hash (P2PKH / P2SH on every Bitcoin-derived chain)
  if (payload.length !== 21)
    return { ok: false, why: `base58 payload of ${payload.length} bytes (21 expected: version + hash160)` };
  return { ok: true, value: { address: text, prefix: `base58:${payload[0]}`, witnessVersion: -1 } };
}

/**
 * What an address `checkAddress` accepted pays to, for the callers that build its script or judge a signature
 * by it: a bech32 address's witness program and kind ("witness": a version no script form here knows, valid
 * all the same), a base58 address's version byte and hash160.
 */
export type AddressPayload =
  | { witnessVersion: number; kind: "p2wpkh" | "p2wsh" | "p2tr" | "witness"; program: Uint8Array }
  | { witnessVersion: -1; version: number; hash: Uint8Array };

export function payloadOf(a: ParsedAddress): AddressPayload {
  if (a.witnessVersion >= 0) {
    const program = bech32Program(a.address);
    const v = a.witnessVersion;
    const kind =
      v === 0
        ? program.length === 20
          ? "p2wpkh"
          : "p2wsh"
        : v === 1 && program.length === 32
          ? "p2tr"
          : "witness";
    return { witnessVersion: v, kind, program };
  }
  const r = base58CheckDecode(a.address);
  // checkAddress accepted it: a 21-byte payload behind a good checksum
  const p = r.ok ? r.payload : new Uint8Array(21);
  return { witnessVersion: -1, version: p[0] as number, hash: p.slice(1) };
}

/**
 * The networks of the coin table as prefix families: a list mixing prefixes no single family holds is
 * refused before anything is sent. Prefixes outside every family are left to the node.
 */
const FAMILIES: readonly string[][] = COIN_NETWORKS.map(prefixesOf);

/**
 * Whether the prefixes seen can belong to one network: at most one bech32 prefix, and the known
 * prefixes all inside one family. Returns the reason when not.
 */
export function mixedFamilies(prefixes: Iterable<string>): string | undefined {
  const all = [...new Set(prefixes)];
  const hrps = all.filter((p) => p.startsWith("hrp:"));
  if (hrps.length > 1)
    return `bech32 prefixes ${hrps.map((h) => h.slice(4)).join(", ")} are different networks`;
  const known = all.filter((p) => FAMILIES.some((f) => f.includes(p)));
  if (known.length < 2) return undefined;
  if (FAMILIES.some((f) => known.every((p) => f.includes(p)))) return undefined;
  return `${known.map(describePrefix).join(", ")} belong to different networks`;
}

export function describePrefix(p: string): string {
  return p.startsWith("hrp:") ? `bech32 prefix ${p.slice(4)}` : `base58 version ${p.slice(7)}`;
}
