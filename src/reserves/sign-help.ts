/**
 * `reserves sign-help`: for each address, how its custodian signs the audit's challenge with the tool that
 * holds its key, in the form chaingw's verifiers read (or OKX's, for an OKX address file), and the
 * signatures file `reserves scan --signatures` and `reserves balances --signatures` read, with a line to
 * fill per address. Offline: the address's form alone says which signature proves it.
 */
import { coinOf } from "../chains/coins.js";
import { tronToHex20 } from "../chains/tron.js";
import { UsageError } from "../errors/index.js";
import { accountFormatOf } from "../proof/account-message.js";
import { decodeProofAddress, type ProofAddress } from "../proof/address.js";
import { ProofInputError } from "../proof/errors.js";
import { shellQuote } from "../util/text.js";

/** Whose verifier the signatures are for: chaingw's own proofs, or OKX's address file (its EVM digest). */
export const SIGN_FORMS = ["chaingw", "okx"] as const;
export type SignForm = (typeof SIGN_FORMS)[number];

/** One address and how it is signed. */
export interface SignWay {
  address: string;
  /** where it came from: "line 3" of the file, or "argument 1" */
  at: string;
  /** what the address is: "Litecoin regtest P2PKH", "EVM account" */
  kind: string;
  /** the signature form the verifier reads for it */
  form: string;
  /** the tool that makes that form */
  tool: string;
  /** the command to run, one per network the address may be of; none where no one-line command makes it */
  commands: string[];
  /** what else the signer must know */
  note?: string;
}

/** The node CLI's and Electrum's flag for a network (main has none). */
const NET_FLAG: Record<string, { cli: string; electrum: string }> = {
  main: { cli: "", electrum: "" },
  test: { cli: " -testnet", electrum: " --testnet" },
  regtest: { cli: " -regtest", electrum: " --regtest" },
  signet: { cli: " -signet", electrum: " --signet" },
};

/** The text as the tools take it: cast reads an argument starting with 0x as hex bytes, so such a text goes as its bytes' hex. */
const castText = (text: string): string =>
  /^0[xX]/.test(text) ? `0x${Buffer.from(text, "utf8").toString("hex")}` : shellQuote(text);

/** The (coin, network) pairs an address may be of, narrowed by --coin and --network where given. */
function candidates(a: ProofAddress, coin?: string, network?: string) {
  if (network !== undefined && !NET_FLAG[network])
    throw new UsageError(
      `--network ${JSON.stringify(network)}: not one of ${Object.keys(NET_FLAG).join(", ")}`,
    );
  // the decoder counts signet as test (the same prefixes); --network signet names the flag to give
  const net = network === "signet" ? "test" : network;
  const out = a.networks.filter(
    (n) => (coin === undefined || n.chain === coin) && (net === undefined || n.net === net),
  );
  if (!out.length)
    throw new UsageError(
      `${a.address} is an address of ${a.networks.map((n) => `${coinOf(n.chain)?.name ?? n.chain} ${n.net}`).join(", ")}, not of ${[coin, network].filter(Boolean).join(" ")}`,
    );
  return out.map((n) => ({ coin: coinOf(n.chain)!, net: network ?? n.net }));
}

/** A Bitcoin-family address: the node's signmessage for P2PKH, Electrum for segwit keys, BIP-322 for scripts. */
function utxoWay(address: string, at: string, text: string, o: { coin?: string; network?: string }): SignWay {
  const a = decodeProofAddress(address);
  const nets = candidates(a, o.coin, o.network);
  // "Bitcoin test/regtest, Litecoin test/regtest": each coin once, its networks after it
  const byCoin = new Map<string, string[]>();
  for (const n of nets) byCoin.set(n.coin.name, [...(byCoin.get(n.coin.name) ?? []), n.net]);
  const names = [...byCoin].map(([c, ns]) => `${c} ${ns.join("/")}`).join(", ");
  const kind = `${names} ${a.kind.toUpperCase()}`;
  const q = shellQuote(text);
  const node = (n: (typeof nets)[number]) =>
    `${n.coin.node.cli}${NET_FLAG[n.net]?.cli ?? ""} signmessage ${address} ${q}`;
  const electrum = nets.flatMap((n) =>
    n.coin.node.electrum
      ? [`${n.coin.node.electrum}${NET_FLAG[n.net]?.electrum ?? ""} signmessage ${address} ${q}`]
      : [],
  );
  const shared =
    nets.length > 1
      ? "; the prefix is shared: run the one of the network whose wallet holds the key (--coin, --network narrow it)"
      : "";
  switch (a.kind) {
    case "p2pkh":
      return {
        address,
        at,
        kind,
        form: "legacy signed message (BIP-137), the coin's message magic",
        tool: `${[...new Set(nets.map((n) => n.coin.node.cli))].join(", ")} signmessage (the wallet holding the key), or Electrum's signmessage`,
        commands: [...new Set(nets.map(node))],
        ...(shared ? { note: shared.slice(2) } : {}),
      };
    case "p2wpkh":
      return {
        address,
        at,
        kind,
        form: "legacy signed message with the key's header (as Electrum signs segwit keys), or BIP-322 simple (smp…)",
        tool: "Electrum's signmessage (the nodes' signmessage signs only P2PKH addresses), or a wallet that makes BIP-322 signatures",
        commands: [...new Set(electrum)],
        note: `the node wallets (${nets[0]?.coin.node.cli} signmessage) refuse segwit addresses${shared}`,
      };
    case "p2sh":
      return {
        address,
        at,
        kind,
        form: "a P2SH-P2WPKH key: legacy signed message (Electrum's); a standard k-of-n multisig script: BIP-322 full (ful…)",
        tool: "Electrum's signmessage for a wrapped segwit key; for a multisig script, a wallet that signs BIP-322's to_sign transaction with k of its keys",
        commands: [...new Set(electrum)],
        note: `which it is, the address does not say: the command is for a wrapped key${shared}`,
      };
    case "p2wsh":
      return {
        address,
        at,
        kind,
        form: "BIP-322 full (ful…): BIP-322's to_sign transaction signed by k of the script's keys (standard k-of-n multisig)",
        tool: "the keys' wallets: walletprocesspsbt of BIP-322's to_sign transaction (no node's signmessage signs it)",
        commands: [],
        note: "chaingw reads standard k-of-n multisig scripts; another script: cannot say",
      };
    case "p2tr":
      return {
        address,
        at,
        kind,
        form: "BIP-322 simple (smp…), key path",
        tool: "a wallet that makes BIP-322 simple signatures for taproot (Sparrow, bdk; no node's signmessage does)",
        commands: [],
        note: "a script-path spend: cannot say",
      };
    default:
      throw new UsageError(
        `${at}: ${address} is a witness version ${a.witnessVersion} address: no signature form chaingw reads proves it`,
      );
  }
}

/** An EVM or TRON account: `cast wallet sign` (EIP-191, or OKX's digest), TronWeb's signMessageV2. */
function accountWay(address: string, at: string, text: string, form: SignForm): SignWay {
  if (accountFormatOf(address) === "tip191") {
    tronToHex20(address);
    return {
      address,
      at,
      kind: "TRON account",
      form: "TIP-191 (TronWeb signMessageV2)",
      tool: "TronWeb (TronLink, or Node with the key)",
      commands: [`await tronWeb.trx.signMessageV2(${JSON.stringify(text)})`],
      note: "a contract or multi-signature account: cannot say",
    };
  }
  const okx = form === "okx";
  return {
    address,
    at,
    kind: "EVM account",
    form: okx
      ? "OKX's: personal_sign over keccak256 of the text (the 32 bytes)"
      : "EIP-191 personal_sign over the text",
    tool: "cast wallet sign (Foundry; --ledger, --trezor or --keystore instead of --interactive as the key is kept), or any wallet's personal_sign",
    commands: [
      okx
        ? `cast wallet sign --interactive "$(cast keccak ${castText(text)})"`
        : `cast wallet sign --interactive ${castText(text)}`,
    ],
    note: okx
      ? "OKX's address file reads this digest; chaingw's own --signatures read EIP-191 over the text"
      : "a contract wallet (a Safe): its owners' signatures as the wallet's EIP-1271 reads them",
  };
}

export interface SignHelpOptions {
  challenge: string;
  form: SignForm;
  coin?: string;
  network?: string;
}

/** Each address's way to sign, in the list's order; a bad or repeated address refused naming its line (exit 2). */
export function signWays(list: { address: string; at: string }[], o: SignHelpOptions): SignWay[] {
  const seen = new Map<string, string>();
  return list.map(({ address, at }) => {
    const key = /^0x/i.test(address) ? address.toLowerCase() : address;
    const before = seen.get(key);
    if (before) throw new UsageError(`${at}: ${address} repeats ${before}`);
    seen.set(key, at);
    try {
      return accountFormatOf(address)
        ? accountWay(address, at, o.challenge, o.form)
        : utxoWay(address, at, o.challenge, o);
    } catch (e) {
      if (e instanceof ProofInputError) throw new UsageError(`${at}: ${address}: ${e.reason}`);
      if (e instanceof UsageError && !e.message.startsWith(at)) throw new UsageError(`${at}: ${e.message}`);
      throw e;
    }
  });
}

/**
 * The signatures file to fill: a comment with the challenge, the header, and one `address,` line per address;
 * its signature goes after the comma. Read as it is, `--signatures` refuses it naming the first empty line.
 */
export function signatureTemplate(challenge: string, ways: SignWay[]): string {
  return [
    `# signatures over the challenge ${JSON.stringify(challenge)}`,
    "# after each address's comma, the signature its command printed (base64, or 0x… for EVM and TRON)",
    "address,signature",
    ...ways.map((w) => `${w.address},`),
    "",
  ].join("\n");
}
