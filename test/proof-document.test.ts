import { describe, expect, it } from "vitest";
import { readProof, readSignatureFile } from "../src/proof/document.js";
import { ProofInputError } from "../src/proof/errors.js";
import { digestOf } from "../src/proof/jcs.js";

// The strict reader of "chaingw-reserves-proof/1": one valid document, then each way to break it, each
// refused with the JSON path of the field at fault.

const H = (c: string) => c.repeat(64);
const A1 = "rltc1qsghmgrx24vzgnagac6vrhu0nu59cf2tetszw3c";
const A2 = "mpLQjfK79b7CCV4VMJWEWAj5Mpx8Up5zxB";

type Doc = Record<string, any>;

function valid(): Doc {
  const doc: Doc = {
    format: "chaingw-reserves-proof/1",
    chain: "regtest",
    height: 120,
    block_hash: H("b"),
    created_at: "2026-08-01T12:00:00Z",
    challenge: "auditor nonce 42",
    min_conf: 6,
    scan_objects: [A1, `addr(${A2})`, { desc: "wpkh(tpub/0/*)", range: [0, 1000] }],
    outputs: [
      out("1", 0, "50.00000000", "5000000000", A1, 10),
      out("2", 1, "0.00000001", "1", A1, 11),
      out("3", 0, "1.5", "150000000", `addr(${A2})`, 100),
    ],
    excluded: [{ ...out("4", 2, "2.00000000", "200000000", A1, 118), confirmations: 3 }],
    by_address: [
      { address: A1, amount: "50.00000001", amount_sats: "5000000001", outputs: 2 },
      { address: A2, amount: "1.50000000", amount_sats: "150000000", outputs: 1 },
    ],
    total: { amount: "51.50000001", amount_sats: "5150000001", outputs: 3 },
    ownership: {
      signatures: [
        { address: A1, signature: "smpAA==", valid: true, format: "bip322-simple", detail: "ok" },
        { address: A2, signature: "H+G7", valid: false, format: "legacy", detail: "no" },
      ],
      proven_sats: "5000000001",
      claimed_only_sats: "150000000",
    },
  };
  doc.digest = digestOf(doc);
  return doc;
}

function out(t: string, vout: number, amount: string, sats: string, matched: string, height: number): Doc {
  return {
    txid: H(t),
    vout,
    amount,
    amount_sats: sats,
    script_pubkey: "0014" + "ab".repeat(20),
    matched,
    height,
    block_hash: H("c"),
  };
}

/** a document whose outputs[i] has this txid, digest left stale (the reader does not judge it) */
const withTxid = (d: Doc, i: number, txid: string): Doc => {
  d.outputs[i].txid = txid;
  return d;
};

const refused = (text: string): ProofInputError => {
  try {
    readProof(text);
  } catch (e) {
    if (e instanceof ProofInputError) return e;
    throw e;
  }
  throw new Error("readProof accepted it");
};
const refuse = (edit: (d: Doc) => void, field: string, why: RegExp) => {
  const d = valid();
  edit(d);
  const e = refused(JSON.stringify(d));
  expect({ field: e.field, reason: e.reason }).toEqual({ field, reason: expect.stringMatching(why) });
  expect(e.message).toBe(`${field}: ${e.reason}`);
};

describe("readProof", () => {
  it("reads a consistent document, keeping every member and the digest's meaning", () => {
    const d = valid();
    const text = JSON.stringify(d, null, 2);
    const p = readProof(text);
    expect(p).toEqual(d);
    expect(digestOf(p)).toBe(d.digest);
    // optional members may be absent
    const bare = valid();
    delete bare.min_conf;
    delete bare.excluded;
    delete bare.ownership;
    bare.challenge = null;
    const q = readProof(JSON.stringify(bare));
    expect(q).toEqual(bare);
    expect("ownership" in q).toBe(false);
  });

  it("refuses text that is not JSON, or not one object", () => {
    expect(refused("{").field).toBe("document");
    expect(refused("{").reason).toMatch(/not JSON/);
    expect(refused("[]").reason).toMatch(/must be an object, not an array/);
    expect(refused("").field).toBe("document");
  });

  it("refuses a repeated member name wherever it is", () => {
    const text = JSON.stringify(valid());
    const e = refused(text.replace('"format":', '"chain":"main","format":'));
    expect([e.field, e.reason]).toEqual(["chain", expect.stringMatching(/"chain" appears twice/)]);
    const nested = text.replace('"vout":1,', '"vout":1,"vout":2,');
    expect(refused(nested).field).toBe("outputs[1].vout");
    // an escaped spelling of the same name is the same name
    expect(refused(text.replace('"height":120,', '"height":120,"h\\u0065ight":120,')).field).toBe("height");
  });

  it("refuses a wrong format and missing, unknown or mistyped members", () => {
    refuse((d) => (d.format = "chaingw-reserves-proof/2"), "format", /must be "chaingw-reserves-proof\/1"/);
    refuse((d) => delete d.format, "format", /missing/);
    refuse((d) => delete d.outputs[2].block_hash, "outputs[2].block_hash", /missing/);
    refuse((d) => (d.extra = 1), "extra", /unknown member/);
    refuse((d) => (d.total.note = "x"), "total.note", /unknown member/);
    refuse((d) => (d.chain = "Main Net"), "chain", /not a chain name/);
    refuse((d) => (d.height = "120"), "height", /must be a number, not "120"/);
    refuse((d) => (d.height = 1.5), "height", /1.5 is not a non-negative integer/);
    refuse((d) => (d.height = -1), "height", /not a non-negative integer/);
    refuse((d) => (d.block_hash = H("B")), "block_hash", /64 lowercase hex/);
    refuse((d) => (d.created_at = "yesterday"), "created_at", /ISO-8601/);
    refuse((d) => (d.created_at = "2026-08-01T12:00:00"), "created_at", /with a zone/);
    refuse((d) => (d.challenge = 5), "challenge", /must be a string, not the number 5/);
    refuse((d) => delete d.challenge, "challenge", /missing/);
    refuse((d) => (d.scan_objects = []), "scan_objects", /empty/);
    refuse((d) => (d.scan_objects[2].range = [5, 1]), "scan_objects[2].range", /end 1 is below begin 5/);
    refuse((d) => (d.scan_objects[2].range = [0]), "scan_objects[2].range", /\[begin, end\]/);
    refuse((d) => (d.scan_objects[1] = 7), "scan_objects[1]", /must be an object, not the number 7/);
    refuse((d) => (d.outputs = {}), "outputs", /must be an array/);
    refuse((d) => (d.outputs[0].txid = "ab"), "outputs[0].txid", /64 lowercase hex/);
    refuse((d) => (d.outputs[0].vout = "0"), "outputs[0].vout", /must be a number/);
    refuse((d) => (d.outputs[0].script_pubkey = "0014a"), "outputs[0].script_pubkey", /whole bytes/);
    refuse((d) => (d.outputs[0].matched = ""), "outputs[0].matched", /empty/);
    refuse(
      (d) => (d.ownership.signatures[0].valid = "yes"),
      "ownership.signatures[0].valid",
      /true or false/,
    );
    refuse(
      (d) => (d.ownership.signatures[1].format = "bip137"),
      "ownership.signatures[1].format",
      /none of legacy/,
    );
    refuse(
      (d) => (d.ownership.signatures[1].address = "a b"),
      "ownership.signatures[1].address",
      /whitespace/,
    );
    refuse((d) => (d.digest = H("G")), "digest", /64 lowercase hex/);
    refuse((d) => delete d.digest, "digest", /missing/);
  });

  it("refuses amounts that are not exact decimal strings or disagree with their satoshis", () => {
    refuse(
      (d) => (d.outputs[3 - 1].amount_sats = 150000000),
      "outputs[2].amount_sats",
      /decimal string .* not a JSON number/,
    );
    refuse((d) => (d.outputs[0].amount = 50), "outputs[0].amount", /must be a string, not the number 50/);
    refuse((d) => (d.outputs[0].amount = "5e1"), "outputs[0].amount", /not an exact decimal amount/);
    refuse((d) => (d.outputs[0].amount = "50.000000001"), "outputs[0].amount", /at most 8 after the point/);
    refuse((d) => (d.outputs[0].amount = "050.0"), "outputs[0].amount", /not an exact decimal/);
    refuse((d) => (d.outputs[0].amount = "-50"), "outputs[0].amount", /not an exact decimal/);
    refuse((d) => (d.outputs[1].amount_sats = "1.0"), "outputs[1].amount_sats", /not a decimal integer/);
    refuse((d) => (d.outputs[1].amount_sats = "01"), "outputs[1].amount_sats", /not a decimal integer/);
    refuse(
      (d) => (d.outputs[1].amount = "0.00000002"),
      "outputs[1].amount",
      /is 2 satoshis, but amount_sats says 1/,
    );
    refuse((d) => (d.total.amount = "51.5"), "total.amount", /5150000000 satoshis/);
    refuse(
      (d) => (d.by_address[1].amount_sats = "150000001"),
      "by_address[1].amount",
      /amount_sats says 150000001/,
    );
  });

  it("refuses totals that are not the sums of their parts", () => {
    refuse(
      (d) => {
        d.total.amount = "51.50000002";
        d.total.amount_sats = "5150000002";
      },
      "total.amount_sats",
      /outputs' amount_sats add up to 5150000001/,
    );
    refuse((d) => (d.total.outputs = 4), "total.outputs", /lists 3 outputs/);
    refuse(
      (d) => {
        d.by_address[0].amount = "50.00000000";
        d.by_address[0].amount_sats = "5000000000";
      },
      "by_address",
      /add up to 5150000000, the total is 5150000001/,
    );
    refuse((d) => (d.by_address[0].outputs = 3), "by_address", /outputs add up to 4/);
    refuse((d) => (d.by_address[1].address = A1), "by_address[1].address", /repeats by_address\[0\]/);
    refuse(
      (d) => (d.ownership.proven_sats = "5150000001"),
      "ownership.proven_sats",
      /valid signature hold 5000000001/,
    );
    refuse(
      (d) => (d.ownership.claimed_only_sats = "1"),
      "ownership.claimed_only_sats",
      /proven \+ claimed-only must be the total 5150000001/,
    );
    // the valid flag decides what counts as proven
    refuse(
      (d) => (d.ownership.signatures[0].valid = false),
      "ownership.proven_sats",
      /valid signature hold 0/,
    );
  });

  it("refuses outputs listed twice, above the proof's height, or under min_conf", () => {
    // the same txid with another vout is another output
    expect(() => readProof(JSON.stringify(withTxid(valid(), 1, H("1"))))).not.toThrow();
    refuse(
      (d) => {
        d.outputs[1].txid = H("1");
        d.outputs[1].vout = 0;
      },
      "outputs[1]",
      /outpoint 1{64}:0 is already outputs\[0\]/,
    );
    refuse(
      (d) => {
        d.excluded[0].txid = H("3");
        d.excluded[0].vout = 0;
      },
      "excluded[0]",
      /is already outputs\[2\]/,
    );
    refuse((d) => (d.outputs[2].height = 121), "outputs[2].height", /above the proof's height 120/);
    refuse((d) => (d.outputs[2].height = 116), "outputs[2].height", /5 confirmations .* under min_conf 6/);
    refuse(
      (d) => (d.excluded[0].confirmations = 2),
      "excluded[0].confirmations",
      /has 3 at the proof's height 120/,
    );
    refuse((d) => delete d.excluded[0].confirmations, "excluded[0].confirmations", /missing/);
  });

  it("refuses integers past 2^53 and numbers written oddly", () => {
    const text = JSON.stringify(valid());
    expect(refused(text.replace('"height":120', '"height":9007199254740993')).reason).toMatch(
      /above 2\^53 - 1/,
    );
    expect(refused(text.replace('"height":120', '"height":1.2e2')).reason).toMatch(/plain digits/);
    expect(refused(text.replace('"vout":0', '"vout":0.0')).field).toBe("outputs[0].vout");
  });
});

describe("readSignatureFile", () => {
  const sig = "IFqUo4/sxBEFkfK8mZeeN56V13BqOc0D90oPBChF3gTqMXtNSCTN79UxC33kZ8Mi0cHy4zYCnQfCxTyLpMVXKeA=";
  const smp =
    "smpAkcwRAIgM2gBAQqvZX15ZiysmKmQpDrG83avLIT492QBzLnQIxYCIBaTpOaD20qRlEylyxFSeEA2ba9YOixpX8z46TSDtS40ASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=";

  it("reads lines, skipping comments, blanks, a header and CR endings", () => {
    const text = `# reserves 2026-08\r\naddress,signature\r\n\r\n${A2},${sig}\r\n  # indented comment\n"${A1}" , "${smp}"\n`;
    expect(readSignatureFile(text)).toEqual([
      { address: A2, signature: sig, line: 4 },
      { address: A1, signature: smp, line: 6 },
    ]);
    expect(readSignatureFile("")).toEqual([]);
  });

  it("refuses a bad line by its number", () => {
    const bad = (text: string, line: number, why: RegExp) => {
      let e: unknown;
      try {
        readSignatureFile(text);
      } catch (x) {
        e = x;
      }
      expect(e).toBeInstanceOf(ProofInputError);
      expect((e as ProofInputError).field).toBe(`line ${line}`);
      expect((e as ProofInputError).reason).toMatch(why);
    };
    bad(`${A2},${sig}\n${A2}`, 2, /1 comma-separated fields/);
    bad(`\n\n${A2},${sig},x`, 3, /3 comma-separated fields/);
    bad(`,${sig}`, 1, /empty address/);
    bad(`${A2},`, 1, /empty signature/);
    bad(`#\n${A2.slice(0, -1)}x,${sig}`, 2, /address mpLQ.*checksum/);
    // a base58 address under Dash mainnet's P2PKH version (0x4c), which no coin whose messages chaingw reads
    // has (a Dogecoin D… address was this case until Dogecoin's messages were turned on, 6b63d86)
    bad(`XbL9S4bUfxZuA3NEhvB5TyhLUx9GZMFCSP,${sig}`, 1, /no Bitcoin, Litecoin or Dogecoin network/);
    bad(`${A2},not base64!`, 1, /not base64/);
    // a header is only a header before the data
    bad(`${A2},${sig}\naddress,signature`, 2, /address address/);
  });
});
