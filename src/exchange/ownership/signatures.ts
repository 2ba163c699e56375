/**
 * Every signature form of the exchanges' ownership files, judged offline: Bitcoin-family signmessage
 * (BIP-137 compact signatures, each coin's magic) for single keys and m-of-n scripts; secp256k1 recovery for
 * EVM and TRON addresses over the digests the exchanges sign (OKX's personal_sign over keccak(msg), EIP-191,
 * raw keccak, OKX's "OKX Signed Message" header, TRON v1 over keccak(msg) or the raw text, TRON v2); ed25519
 * with its address encodings (Solana, Polkadot SS58, Cardano enterprise, Aptos, Sui, Algorand). A form
 * chaingw cannot judge is "unsupported", named, never valid.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { blake2b } from "@noble/hashes/blake2.js";
import { sha256, sha512_256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { base32nopad, base58, base64, bech32 } from "@scure/base";
import { OutScript } from "@scure/btc-signer";
import { checkAddress, payloadOf } from "../../chains/address.js";
import { hex20ToTron, looksLikeTronBase58, tronToHex20 } from "../../chains/tron.js";
import { compressedKey, recoverKey } from "../../proof/curve.js";
import { accountHexOfKey } from "../../proof/keccak.js";
import { compactSize, equal, hash160, sha256d } from "../../proof/message.js";
import { type Ed25519Net, ed25519NetOf, type UtxoCoin } from "./coins.js";

/** What one signature (or a row's set of them) showed. */
export interface Judged {
  status: "proven" | "failed" | "unsupported";
  /** the form that was judged ("BTC signmessage, P2WSH 2-of-3", "EVM personal_sign(keccak(msg))", …) */
  form: string;
  detail: string;
}

const proven = (form: string, detail: string): Judged => ({ status: "proven", form, detail });
const failed = (form: string, detail: string): Judged => ({ status: "failed", form, detail });
export const unsupported = (form: string, detail: string): Judged => ({
  status: "unsupported",
  form,
  detail,
});

/** a CompactSize-prefixed string (Bitcoin's and OKX's "varstr") */
const varstr = (s: string | Uint8Array): Uint8Array => {
  const b = typeof s === "string" ? utf8ToBytes(s) : s;
  return concatBytes(compactSize(b.length), b);
};

// ---------------------------------------------------------------------------------------------------
// Bitcoin family

type UtxoKind = "p2pkh" | "p2sh" | "p2wpkh" | "p2wsh" | "p2tr";
export interface UtxoAddress {
  kind: UtxoKind;
  /** hash160 for p2pkh/p2sh, the witness program otherwise */
  hash: Uint8Array;
}

/**
 * The address as `coin` prints it, or why it does not decode. Checksums and witness rules are the one
 * decoder's (`chains/address.ts`); this adds whether the prefix is the coin's, on the network read.
 */
export function decodeUtxoAddress(coin: UtxoCoin, text: string): UtxoAddress | string {
  const r = checkAddress(text);
  if (!r.ok) return r.why;
  const { prefix, witnessVersion } = r.value;
  const p = payloadOf(r.value);
  if ("program" in p) {
    if (prefix !== `hrp:${coin.hrp}`)
      return `bech32 prefix ${prefix.slice(4)} is not a ${coin.label} address`;
    if (p.kind === "witness")
      return `witness version ${witnessVersion} with a ${p.program.length}-byte program`;
    return { kind: p.kind, hash: p.program };
  }
  if (coin.p2pkh.includes(p.version)) return { kind: "p2pkh", hash: p.hash };
  if (coin.p2sh.includes(p.version)) return { kind: "p2sh", hash: p.hash };
  return `base58 version ${p.version} is not a ${coin.label} address`;
}

/** The output script an address pays to. */
export function scriptOf(a: UtxoAddress): Uint8Array {
  switch (a.kind) {
    case "p2pkh":
      return OutScript.encode({ type: "pkh", hash: a.hash });
    case "p2sh":
      return OutScript.encode({ type: "sh", hash: a.hash });
    case "p2wpkh":
      return OutScript.encode({ type: "wpkh", hash: a.hash });
    case "p2wsh":
      return OutScript.encode({ type: "wsh", hash: a.hash });
    case "p2tr":
      return OutScript.encode({ type: "tr", pubkey: a.hash });
  }
}

/**
 * A digest per message, kept: a file's rows sign one message or a few, so each digest is hashed once, not
 * once a row. Bounded: a file of distinct messages empties it now and then.
 */
function remembered(make: (key: string) => Uint8Array): (key: string) => Uint8Array {
  const kept = new Map<string, Uint8Array>();
  return (key) => {
    let d = kept.get(key);
    if (!d) {
      if (kept.size >= 1024) kept.clear();
      d = make(key);
      kept.set(key, d);
    }
    return d;
  };
}

const signmessageDigests = remembered((key) => {
  const cut = key.indexOf("\0");
  return sha256d(concatBytes(varstr(key.slice(0, cut)), varstr(key.slice(cut + 1))));
});

/** Bitcoin Core's MessageHash with `magic`: double SHA-256 of varstr(magic) ‖ varstr(message). */
export const signmessageDigest = (magic: string, message: string): Uint8Array =>
  signmessageDigests(`${magic}\0${message}`);

/** The public key a BIP-137 signature (base64, 65 bytes) yields over `digest`, or why none does. */
export function recoverSignmessageKey(
  signature: string,
  digest: Uint8Array,
): { pub: Uint8Array; header: number } | string {
  let bytes: Uint8Array;
  try {
    bytes = base64.decode(signature);
  } catch {
    return "not base64";
  }
  if (bytes.length !== 65) return `${bytes.length} bytes, not a 65-byte signmessage signature`;
  const header = bytes[0] as number;
  if (header < 27 || header > 42) return `header ${header} is not a signmessage header (27-42)`;
  const pub = recoverKey(bytes.subarray(1), (header - 27) & 3, digest, header >= 31);
  return pub ? { pub, header } : "no key can be recovered from it over this message";
}

/** A public key's point, compressed, as hex (the bytes as given where they are not a point). */
const pointOf = (pub: Uint8Array): string => bytesToHex(compressedKey(pub) ?? pub);

/** A single-key address proven by one signmessage signature. */
export function judgeUtxoSingle(
  coin: UtxoCoin,
  addr: UtxoAddress,
  signature: string,
  message: string,
): Judged {
  const form = `${coin.ticker} signmessage`;
  if (addr.kind === "p2wsh" || addr.kind === "p2tr")
    return unsupported(
      form,
      `a ${addr.kind.toUpperCase()} address needs ${addr.kind === "p2wsh" ? "its script and m signatures" : "a BIP-322 signature"}; one signmessage signature cannot prove it`,
    );
  const key = recoverSignmessageKey(signature, signmessageDigest(coin.magic, message));
  if (typeof key === "string") return failed(form, `the signature: ${key}`);
  const kh = hash160(key.pub);
  const target = addr.kind === "p2sh" ? hash160(OutScript.encode({ type: "wpkh", hash: kh })) : kh;
  if (addr.kind === "p2wpkh" && key.pub.length !== 33)
    return failed(form, "an uncompressed key cannot own a P2WPKH address");
  if (!equal(target, addr.hash))
    return failed(
      form,
      `the key it yields over this message (${coin.name} magic) is not the address's (key hash ${bytesToHex(kh)})`,
    );
  return proven(
    `${form}, ${addr.kind.toUpperCase()}${addr.kind === "p2sh" ? "-P2WPKH" : ""}`,
    `the address's key signed "${message}" (${coin.name} magic, header ${key.header})`,
  );
}

/**
 * An m-of-n script address: the script must hash to the address (P2SH, P2SH-P2WSH or P2WSH), and m
 * signatures must come from m distinct keys of the script. A key that signs twice counts once, and is named:
 * OKX's own tool counts it twice.
 */
export function judgeUtxoScript(
  coin: UtxoCoin,
  addr: UtxoAddress,
  scriptHex: string,
  signatures: readonly string[],
  message: string,
): Judged {
  let script: Uint8Array;
  try {
    script = hexToBytes(scriptHex.replace(/^0x/i, ""));
  } catch {
    return failed(`${coin.ticker} script`, "the redeem script is not hex");
  }
  let ms: { m: number; pubkeys: Uint8Array[] } | undefined;
  try {
    const o = OutScript.decode(script);
    if (o.type === "ms") ms = { m: o.m, pubkeys: o.pubkeys };
  } catch {
    ms = undefined;
  }
  const wsh = sha256(script);
  const bound =
    addr.kind === "p2wsh"
      ? equal(wsh, addr.hash) && "P2WSH"
      : addr.kind === "p2sh"
        ? equal(hash160(script), addr.hash)
          ? "P2SH"
          : equal(hash160(concatBytes(Uint8Array.of(0, 32), wsh)), addr.hash) && "P2SH-P2WSH"
        : false;
  if (!ms)
    return bound
      ? unsupported(`${coin.ticker} script`, "scripts other than standard m-of-n multisig are not supported")
      : failed(
          `${coin.ticker} script`,
          `the script given does not hash to this ${addr.kind.toUpperCase()} address`,
        );
  const form = `${coin.ticker} signmessage, ${bound || addr.kind.toUpperCase()} ${ms.m}-of-${ms.pubkeys.length}`;
  if (!bound)
    return failed(form, `the script given does not hash to this ${addr.kind.toUpperCase()} address`);
  const digest = signmessageDigest(coin.magic, message);
  // keys are told apart by their point: one key written compressed and uncompressed is one key, however
  // often the script lists it
  const points = ms.pubkeys.map(pointOf);
  const used = new Map<string, number>();
  for (const [i, sig] of signatures.entries()) {
    const key = recoverSignmessageKey(sig, digest);
    if (typeof key === "string") return failed(form, `signature ${i + 1}: ${key}`);
    const point = pointOf(key.pub);
    const k = ms.pubkeys.findIndex((p) => equal(p, key.pub));
    if (k < 0)
      return failed(
        form,
        `signature ${i + 1} is by a key that is not in the script (another key, or another message)`,
      );
    const before = used.get(point);
    if (before !== undefined)
      return failed(
        form,
        `signatures ${before + 1} and ${i + 1} are by the same key (key ${points.indexOf(point) + 1} of the script${points.filter((p) => p === point).length > 1 ? ", which lists it more than once" : ""}): a multisig signed twice by one key`,
      );
    used.set(point, i);
  }
  if (used.size < ms.m)
    return failed(
      form,
      `${used.size} distinct key${used.size === 1 ? "" : "s"} signed; the script needs ${ms.m}`,
    );
  return proven(form, `${used.size} distinct keys of the script signed "${message}" (${coin.name} magic)`);
}

// ---------------------------------------------------------------------------------------------------
// secp256k1 accounts: EVM and TRON

/** A digest the exchanges sign an account's message in. */
export type AccountDigest =
  | "okx-evm"
  | "eip191"
  | "raw-keccak"
  | "okx-header"
  | "tron-v1"
  | "tron-v1-raw"
  | "tron-v2";

const ETH = "\x19Ethereum Signed Message:\n";
const TRON = "\x19TRON Signed Message:\n";
const OKX_HEADER = "OKX Signed Message:\n";
const prefixed = (prefix: string, body: Uint8Array, len = String(body.length)) =>
  keccak_256(concatBytes(utf8ToBytes(`${prefix}${len}`), body));

export const ACCOUNT_DIGEST_NAME: Record<AccountDigest, string> = {
  "okx-evm": "personal_sign over keccak256(message)",
  eip191: "EIP-191 personal_sign",
  "raw-keccak": "keccak256(message) signed raw (eth_sign style, no prefix)",
  "okx-header": 'keccak256 of OKX\'s "OKX Signed Message" header and the message',
  "tron-v1": "TRON v1 signMessage over keccak256(message)",
  "tron-v1-raw": "TRON v1 signMessage over the message's bytes",
  "tron-v2": "TRON v2 signMessageV2",
};

const accountDigests = Object.fromEntries(
  (Object.keys(ACCOUNT_DIGEST_NAME) as AccountDigest[]).map((d) => [
    d,
    remembered((message) => digestOf(d, message)),
  ]),
) as Record<AccountDigest, (message: string) => Uint8Array>;

/** The 32 bytes signed for `message` in `d`. */
export const accountDigest = (d: AccountDigest, message: string): Uint8Array => accountDigests[d](message);

function digestOf(d: AccountDigest, message: string): Uint8Array {
  const m = utf8ToBytes(message);
  switch (d) {
    case "okx-evm":
      return prefixed(ETH, keccak_256(m));
    case "eip191":
      return prefixed(ETH, m);
    case "raw-keccak":
      return keccak_256(m);
    case "okx-header":
      return keccak_256(concatBytes(varstr(OKX_HEADER), varstr(m)));
    case "tron-v1":
      return prefixed(TRON, keccak_256(m), "32");
    case "tron-v1-raw":
      return prefixed(TRON, m, "32");
    case "tron-v2":
      return prefixed(TRON, m);
  }
}

/** r ‖ s ‖ v in hex (0x optional; v 27/28 or 0/1), or why not. */
export function readRsv(text: string): { compact: Uint8Array; recovery: number } | string {
  const hex = text.replace(/^0x/i, "");
  if (!/^[0-9a-fA-F]{130}$/.test(hex)) return `not 65 bytes of hex (r ‖ s ‖ v): ${hex.length} characters`;
  const b = hexToBytes(hex);
  const v = b[64] as number;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) return `v is ${v}: 27/28 or 0/1 expected`;
  return { compact: b.subarray(0, 64), recovery };
}

/** The 20-byte account (lowercase hex, no 0x) whose key made `sig` over `digest`, or undefined. */
export function recoverAccount20(
  sig: { compact: Uint8Array; recovery: number },
  digest: Uint8Array,
): string | undefined {
  const pub = recoverKey(sig.compact, sig.recovery, digest, false);
  return pub && accountHexOfKey(pub);
}

export const isEvmAddress = (a: string): boolean => /^0x[0-9a-fA-F]{40}$/.test(a);
export const isTronAddress = looksLikeTronBase58;

/** secp256k1's order n. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const scalars = new WeakMap<Uint8Array, bigint>();

/** A digest as the number ECDSA signs: its 32 bytes mod n (kept per digest, which `accountDigest` keeps). */
const digestScalar = (d: Uint8Array): bigint => {
  let e = scalars.get(d);
  if (e === undefined) {
    e = BigInt(`0x${bytesToHex(d)}`) % N;
    scalars.set(d, e);
  }
  return e;
};

/**
 * An EVM (0x…) or TRON (T…) address proven by a signature in one of `digests` (tried in order; the one that
 * held is named, and given as `digest`). Every digest binds the message: a forger needs the key for any of
 * them. `likely`: a digest to try first (the one the rows before held in: a file's rows sign in one), with
 * the same answer as trying them in order.
 */
export function judgeAccount(
  address: string,
  signature: string,
  message: string,
  digests: readonly AccountDigest[],
  likely?: AccountDigest,
): Judged & { digest?: AccountDigest } {
  const tron = isTronAddress(address);
  const chainName = tron ? "TRON" : "EVM";
  let want: string;
  try {
    want = tron ? tronToHex20(address).slice(2) : address.slice(2).toLowerCase();
  } catch (e) {
    return failed(`${chainName} address`, `the address does not decode: ${(e as Error).message}`);
  }
  const sig = readRsv(signature);
  if (typeof sig === "string") return failed(`${chainName} signature`, `the signature: ${sig}`);
  const got = new Map<AccountDigest, string | undefined>();
  const recovered = (d: AccountDigest) => {
    if (!got.has(d)) got.set(d, recoverAccount20(sig, accountDigest(d, message)));
    return got.get(d);
  };
  const held = (d: AccountDigest) => ({
    ...proven(`${chainName} ${ACCOUNT_DIGEST_NAME[d]}`, `the address's key signed "${message}"`),
    digest: d,
  });
  // the likely digest first (OKX's TRON v2 rows were recovered twice, v1 tried first). The same answer as
  // trying them in order: one signature recovers one key per digest, another key for another digest unless
  // the two are one number mod n — then the earlier is named
  if (likely !== undefined && digests.includes(likely) && recovered(likely) === want) {
    const e = digestScalar(accountDigest(likely, message));
    const earlier = digests
      .slice(0, digests.indexOf(likely))
      .find((d) => digestScalar(accountDigest(d, message)) === e);
    return held(earlier ?? likely);
  }
  for (const d of digests) if (d !== likely && recovered(d) === want) return held(d);
  const first = digests.map(recovered).find((a) => a !== undefined);
  const shown = (h: string) => (tron ? hex20ToTron(`0x${h}`) : `0x${h}`);
  return failed(
    `${chainName} signature`,
    first
      ? `over "${message}" in ${digests.map((d) => ACCOUNT_DIGEST_NAME[d]).join(" / ")} it yields ${shown(first)}, not this address (another key, or another message)`
      : "no key can be recovered from it",
  );
}

// ---------------------------------------------------------------------------------------------------
// ed25519

const ss58 = (prefix: number, pk: Uint8Array): string => {
  const body = concatBytes(Uint8Array.of(prefix), pk);
  const sum = blake2b(concatBytes(utf8ToBytes("SS58PRE"), body), { dkLen: 64 }).subarray(0, 2);
  return base58.encode(concatBytes(body, sum));
};

/**
 * The address `net` derives from `pk`, or the public key an address holds (SOL, ALGO), as text to compare;
 * undefined where the derivation is not public or not done here (TON wallets: the contract's code).
 */
function addressesOf(net: Ed25519Net, pk: Uint8Array): string[] | undefined {
  switch (net) {
    case "SOL":
      return [base58.encode(pk)];
    case "DOT":
      return [ss58(0, pk)];
    case "KSM":
      return [ss58(2, pk)];
    case "ADA":
      // an enterprise address (header 0x61: no stake part, mainnet) of the key's blake2b-224
      return [
        bech32.encode(
          "addr",
          bech32.toWords(concatBytes(Uint8Array.of(0x61), blake2b(pk, { dkLen: 28 }))),
          1000,
        ),
      ];
    case "APTOS":
      return [`0x${bytesToHex(sha256(concatBytes(pk, Uint8Array.of(0))))}`];
    case "SUI":
      return [`0x${bytesToHex(blake2b(concatBytes(Uint8Array.of(0), pk), { dkLen: 32 }))}`];
    case "ALGO":
      return [base32nopad.encode(concatBytes(pk, sha512_256(pk).subarray(28)))];
    case "TON":
      return undefined;
  }
}

/** The public key an address carries itself (SOL: the key; ALGO: the key and a checksum), or undefined. */
function keyInAddress(net: Ed25519Net, address: string): Uint8Array | undefined {
  try {
    if (net === "SOL") {
      const b = base58.decode(address);
      return b.length === 32 ? b : undefined;
    }
    if (net === "ALGO") {
      const b = base32nopad.decode(address);
      return b.length === 36 ? b.subarray(0, 32) : undefined;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

const readHexOrBase64 = (s: string, size: number): Uint8Array | undefined => {
  const hex = s.replace(/^0x/i, "");
  if (/^[0-9a-fA-F]+$/.test(hex) && hex.length === size * 2) return hexToBytes(hex);
  try {
    const b = base64.decode(s);
    return b.length === size ? b : undefined;
  } catch {
    return undefined;
  }
};

/** What an ed25519 signature is over: OKX's header and the message, or the message's bytes alone. */
export type Ed25519Body = "okx-header" | "raw";
const BODY_NAME: Record<Ed25519Body, string> = {
  "okx-header": 'OKX\'s "OKX Signed Message" header and the message',
  raw: "the message's bytes",
};

/**
 * An ed25519 address: the signature verifies under the public key (the row's, or the one the address
 * holds), over one of `bodies`, and the address is the key's in the network's encoding.
 */
export function judgeEd25519(
  netName: string,
  address: string,
  signature: string,
  publicKey: string | undefined,
  message: string,
  bodies: readonly Ed25519Body[],
  owner?: string,
): Judged {
  const net = ed25519NetOf(netName) as Ed25519Net;
  const form = `${net} ed25519`;
  const pk = publicKey ? readHexOrBase64(publicKey, 32) : keyInAddress(net, address);
  if (!pk)
    return publicKey
      ? failed(form, "the public key is not 32 bytes of hex")
      : failed(form, `no public key: the row gives none and the address does not decode to one`);
  const sig = readHexOrBase64(signature, 64);
  if (!sig) return failed(form, "the signature is not 64 bytes (hex or base64)");
  const m = utf8ToBytes(message);
  const body = bodies.find((b) => {
    const bytes = b === "raw" ? m : concatBytes(varstr(OKX_HEADER), varstr(m));
    try {
      return ed25519.verify(sig, bytes, pk);
    } catch {
      return false;
    }
  });
  if (!body)
    return failed(
      form,
      `the signature does not verify under the key ${bytesToHex(pk)} over ${bodies.map((b) => BODY_NAME[b]).join(" or ")}`,
    );
  const derived = addressesOf(net, pk);
  if (!derived)
    return unsupported(
      form,
      `the signature verifies under key ${bytesToHex(pk)}, but a ${net} address is a wallet contract's (its code and data), which chaingw does not derive: that the key owns ${address} is not shown`,
    );
  if (owner && net === "APTOS")
    return unsupported(
      form,
      `the signature verifies under key ${bytesToHex(pk)}; the row names ${owner} as the account whose key was rotated to it, which only the chain tells (not read here)`,
    );
  const same =
    net === "APTOS" || net === "SUI" ? derived.includes(address.toLowerCase()) : derived.includes(address);
  if (!same)
    return net === "APTOS"
      ? unsupported(
          form,
          `the signature verifies under key ${bytesToHex(pk)}, whose address is ${derived[0]}, not ${address}; an Aptos account may have rotated its key, which only the chain tells (not read here)`,
        )
      : failed(form, `the key ${bytesToHex(pk)} makes the address ${derived[0]}, not ${address}`);
  return proven(`${form}, over ${BODY_NAME[body]}`, `the address's key signed "${message}"`);
}
