/**
 * A tiny hand-assembled EVM contract for tests against anvil, so that eth_getLogs, eth_call and
 * revert handling meet real node answers without a Solidity compiler.
 *
 * Behaviour of the deployed code, by the first 4 bytes of calldata:
 * - SEL_PING (0x12345678): LOG2(topic0 = PING_TOPIC0, topic1 = calldata[4:36], data = word 42),
 *   returns nothing.
 * - SEL_REVERT (0xdeadbeef): reverts with ABI-encoded Error(string) "nope".
 * - anything else (SEL_GET, empty calldata, ...): returns the 32-byte word 42.
 */
import { receipt } from "./token.js";

/** keccak256("Ping(uint256)"); the event the contract emits (value checked with `cast keccak`). */
export const PING_TOPIC0 = "0x48257dc961b6f792c2b78a080dacfed693b660960a702de21cee364e20270e2f";
export const SEL_PING = "0x12345678";
export const SEL_REVERT = "0xdeadbeef";
/** Any selector other than the two above answers 42; this one is used by the tests. */
export const SEL_GET = "0x6d4ce63c";
/** The revert reason SEL_REVERT produces. */
export const REVERT_REASON = "nope";

/** One instruction: an opcode byte, optionally followed by immediate bytes or a label reference. */
type Item = { op: number; imm?: string; label?: string } | { mark: string };

const STOP = 0x00;
const EQ = 0x14;
const SHL = 0x1b;
const SHR = 0x1c;
const CALLDATALOAD = 0x35;
const CODECOPY = 0x39;
const MSTORE = 0x52;
const JUMPI = 0x57;
const JUMPDEST = 0x5b;
const PUSH1 = 0x60;
const PUSH4 = 0x63;
const PUSH32 = 0x7f;
const DUP1 = 0x80;
const LOG2 = 0xa2;
const RETURN = 0xf3;
const REVERT = 0xfd;

const push1 = (v: number): Item => ({ op: PUSH1, imm: v.toString(16).padStart(2, "0") });
const push4 = (hex: string): Item => ({ op: PUSH4, imm: hex.replace(/^0x/, "") });
const push32 = (hex: string): Item => ({ op: PUSH32, imm: hex.replace(/^0x/, "").padStart(64, "0") });
const jumpTo = (label: string): Item => ({ op: PUSH1, label });
const op = (code: number): Item => ({ op: code });
const mark = (name: string): Item => ({ mark: name });

/** Two passes: place labels (every item has a known size), then emit with resolved offsets. */
function assemble(items: Item[]): string {
  const offsets = new Map<string, number>();
  let pc = 0;
  for (const it of items) {
    if ("mark" in it) {
      offsets.set(it.mark, pc);
      continue;
    }
    pc += 1 + (it.label !== undefined ? 1 : (it.imm?.length ?? 0) / 2);
  }
  let out = "";
  for (const it of items) {
    if ("mark" in it) continue;
    out += it.op.toString(16).padStart(2, "0");
    if (it.label !== undefined) {
      const target = offsets.get(it.label);
      if (target === undefined || target > 0xff) throw new Error(`bad label ${it.label}`);
      out += target.toString(16).padStart(2, "0");
    } else if (it.imm !== undefined) {
      out += it.imm;
    }
  }
  return out;
}

/** "nope" as the left-aligned 32-byte word the ABI uses for string contents. */
const REASON_WORD = Buffer.from(REVERT_REASON, "utf8").toString("hex").padEnd(64, "0");

const RUNTIME_ITEMS: Item[] = [
  // selector = calldata[0:4] (CALLDATALOAD pads with zeros, so empty calldata gives 0)
  push1(0),
  op(CALLDATALOAD),
  push1(0xe0),
  op(SHR),
  op(DUP1),
  push4(SEL_PING),
  op(EQ),
  jumpTo("ping"),
  op(JUMPI),
  op(DUP1),
  push4(SEL_REVERT),
  op(EQ),
  jumpTo("revert"),
  op(JUMPI),
  // default: return the word 42
  push1(0x2a),
  push1(0),
  op(MSTORE),
  push1(0x20),
  push1(0),
  op(RETURN),

  mark("ping"),
  op(JUMPDEST),
  push1(0x2a),
  push1(0),
  op(MSTORE), // log data = word 42 at memory[0:32]
  push1(4),
  op(CALLDATALOAD), // topic1
  push32(PING_TOPIC0), // topic0
  push1(0x20), // size
  push1(0), // offset
  op(LOG2),
  op(STOP),

  mark("revert"),
  op(JUMPDEST),
  // memory[0:100] = 08c379a0 | offset 0x20 | length 4 | "nope" padded
  push4("0x08c379a0"),
  push1(0xe0),
  op(SHL),
  push1(0),
  op(MSTORE),
  push1(0x20),
  push1(4),
  op(MSTORE),
  push1(REVERT_REASON.length),
  push1(0x24),
  op(MSTORE),
  push32(REASON_WORD),
  push1(0x44),
  op(MSTORE),
  push1(0x64),
  push1(0),
  op(REVERT),
];

/** Deployed (runtime) bytecode, without 0x. */
export const RUNTIME_CODE: string = assemble(RUNTIME_ITEMS);

/**
 * Init code: copy the runtime that follows this 11-byte constructor into memory and return it.
 * `PUSH1 len DUP1 PUSH1 11 PUSH1 0 CODECOPY PUSH1 0 RETURN`
 */
export const INIT_CODE: string = (() => {
  const len = RUNTIME_CODE.length / 2;
  if (len > 0xff) throw new Error("runtime too long for PUSH1");
  const ctor = assemble([push1(len), op(DUP1), push1(11), push1(0), op(CODECOPY), push1(0), op(RETURN)]);
  if (ctor.length / 2 !== 11) throw new Error("constructor size changed");
  return `0x${ctor}${RUNTIME_CODE}`;
})();

/** A 32-byte word (0x + 64 hex digits) holding `n`. */
export function word(n: bigint | number): string {
  return `0x${BigInt(n).toString(16).padStart(64, "0")}`;
}

export type RpcFn = (method: string, params?: unknown[]) => Promise<any>;

export interface DeployResult {
  /** Deployed contract address (0x, lowercase). */
  contract: string;
  deployTx: string;
  /** Hashes of the three ping transactions, emitted with topic1 = word(1), word(2), word(3). */
  pingTxs: string[];
  /** The dev account that sent everything. */
  from: string;
}

/** The topic1 values deployAndPing uses, in order. */
export const PING_TOPIC1S: string[] = [word(1), word(2), word(3)];

/**
 * Deploy the contract from anvil's first dev account (anvil signs for its own accounts, and
 * automines), then send three pings, each waited for with `receipt` (the node's own progress).
 */
export async function deployAndPing(rpc: RpcFn): Promise<DeployResult> {
  const accounts: string[] = await rpc("eth_accounts", []);
  const from = accounts[0];
  if (!from) throw new Error("eth_accounts returned no account");

  const deployTx: string = await rpc("eth_sendTransaction", [{ from, data: INIT_CODE, gas: "0x30000" }]);
  const deployReceipt = await receipt(rpc, deployTx);
  if (deployReceipt.status !== "0x1" || !deployReceipt.contractAddress) {
    throw new Error(`deploy failed: ${JSON.stringify(deployReceipt)}`);
  }
  const contract = String(deployReceipt.contractAddress).toLowerCase();

  const pingTxs: string[] = [];
  for (const topic1 of PING_TOPIC1S) {
    const data = SEL_PING + topic1.slice(2);
    const hash: string = await rpc("eth_sendTransaction", [{ from, to: contract, data, gas: "0x20000" }]);
    const r = await receipt(rpc, hash);
    if (r.status !== "0x1") throw new Error(`ping failed: ${JSON.stringify(r)}`);
    pingTxs.push(hash);
  }
  return { contract, deployTx, pingTxs, from };
}
