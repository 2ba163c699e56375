/**
 * A forger's review of `reserves verify` on exchanges' ownership files: each way found to get a row called
 * proven (or a balance counted) when nothing shows control, built from the real published files and their
 * real signatures (test/fixtures/exchange/ownership/SOURCES.md), each next to the honest row that holds.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { base58check, base64 } from "@scure/base";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";

const DIR = join(__dirname, "fixtures", "exchange", "ownership");
const text = (name: string) => readFileSync(join(DIR, name), "utf8");
const tmp = mkdtempSync(join(tmpdir(), "chaingw-forged-"));
let n = 0;
const write = (t: string): string => {
  const path = join(tmp, `forged-${n++}.csv`);
  writeFileSync(path, t);
  return path;
};
interface Row {
  line: number;
  coin: string;
  proven: boolean | null;
  signed?: boolean;
  status: string;
  reason: string;
}
async function verify(file: string) {
  const r = await runCli(["reserves", "verify", file, "--json"]);
  const report = r.exitCode === 2 ? undefined : JSON.parse(r.stdout);
  return { ...r, report } as typeof r & {
    report: {
      rows: Row[];
      counts: Record<string, number>;
      amounts: Record<string, Record<string, string>>;
      amounts_base_units: Record<string, Record<string, string>>;
    };
  };
}
const rowAt = (rows: Row[], line: number) => rows.find((x) => x.line === line) as Row;
const lines = (name: string) => text(name).split("\n");

describe("a row whose coin is not its address's", () => {
  it("an EVM address signed by its key, relabelled BTC, fails (it would count as bitcoin); the ETH row holds", async () => {
    const f = "huobi_por_2023-08.csv";
    const honest = await verify(join(DIR, f));
    expect(rowAt(honest.report.rows, 61)).toMatchObject({ coin: "ETH", signed: true });
    const ls = lines(f);
    ls[60] = (ls[60] as string).replace(/^ETH,/, "BTC,");
    const forged = await verify(write(ls.join("\n")));
    expect(rowAt(forged.report.rows, 61)).toMatchObject({ coin: "BTC", proven: false, status: "failed" });
    expect(rowAt(forged.report.rows, 61).reason).toContain("does not decode as Bitcoin's");
    expect(forged.report.amounts.BTC?.signed).toBe(honest.report.amounts.BTC?.signed);
    expect(forged.exitCode).toBe(1);
  });

  it("a DOGE address with its real DOGE signature, relabelled BTC, fails naming both coins", async () => {
    const f = "okx_OKC_DTT_AUP2025.csv";
    const honest = await verify(join(DIR, f));
    expect(rowAt(honest.report.rows, 7)).toMatchObject({ coin: "DOGE", signed: true });
    const ls = lines(f);
    ls[6] = (ls[6] as string).replace(/^DOGE,DOGE,/, "BTC,DOGE,");
    const forged = await verify(write(ls.join("\n")));
    expect(rowAt(forged.report.rows, 7)).toMatchObject({ coin: "BTC", proven: false, status: "failed" });
    expect(rowAt(forged.report.rows, 7).reason).toContain("Dogecoin");
    expect(forged.exitCode).toBe(1);
  });
});

describe("a row whose network is not its address's", () => {
  const f = "huobi_por_2023-08.csv";
  const relabel = (line: number, from: RegExp, to: string) => {
    const ls = lines(f);
    ls[line - 1] = (ls[line - 1] as string).replace(from, to);
    return write(ls.join("\n"));
  };

  it.each([
    // (6 places: TRX has no finer unit)
    [
      61,
      /^ETH,(.*?),58\.46942368,/,
      "TRX,$1,58.469423,",
      "the row is on TRON (coin TRX), but its address is an EVM address",
    ],
    [61, /^ETH,/, "SOL,", "the row is on SOL (coin SOL), but its address is an EVM address"],
    [
      61,
      /^ETH,(.*?),58\.46942368,/,
      "USDT-TRC20,$1,58.469423,",
      "the row is on TRON (network TRC20), but its address is an EVM address",
    ],
    [41, /^TRX,/, "ETH,", "the row is on ETH (coin ETH), but its address is a TRON address"],
    [41, /^TRX,/, "USDT-ERC20,", "the row is on ERC20 (network ERC20), but its address is a TRON address"],
    // HTX also writes the chain first ("SOL-USDC", "BEP20-USDC", "ERC20-USDC"): the part after the "-" is the token
    [61, /^ETH,/, "SOL-USDC,", "the row is on SOL (coin SOL-USDC), but its address is an EVM address"],
    [41, /^TRX,/, "BEP20-USDC,", "the row is on BEP20 (coin BEP20-USDC), but its address is a TRON address"],
  ])(
    "line %i relabelled %s → %s: its real signature still verifies, the row fails naming both",
    async (line, from, to, says) => {
      const honest = await verify(join(DIR, f));
      expect(rowAt(honest.report.rows, line)).toMatchObject({ signed: true, status: "signed" });
      const forged = await verify(relabel(line, from, to));
      expect(rowAt(forged.report.rows, line)).toMatchObject({ proven: false, status: "failed" });
      expect(rowAt(forged.report.rows, line).reason).toContain(says);
      expect(forged.exitCode).toBe(1);
    },
  );
});

describe("an m-of-n whose keys are one key", () => {
  it("2-of-2 of one key in compressed and uncompressed form, signed by OKX's real signature and its header flipped, fails; the real 2-of-3 holds", async () => {
    const f = "okx_por_example_2022-11.csv";
    const honest = await verify(join(DIR, f));
    expect(rowAt(honest.report.rows, 19)).toMatchObject({ signed: true });
    const c = (lines(f)[18] as string).split(",");
    const sig = c[4] as string;
    // the key OKX's first signature yields over its message (Bitcoin's magic), in both of its forms
    const magic = "\x18Bitcoin Signed Message:\n";
    const m = utf8ToBytes(c[3] as string);
    const digest = sha256(sha256(concatBytes(utf8ToBytes(magic), Uint8Array.of(m.length), m)));
    const bytes = base64.decode(sig);
    const header = bytes[0] as number;
    expect(header).toBeGreaterThanOrEqual(31);
    const point = secp256k1.Signature.fromBytes(bytes.subarray(1), "compact")
      .addRecoveryBit((header - 27) & 3)
      .recoverPublicKey(digest);
    const [kc, ku] = [point.toBytes(true), point.toBytes(false)];
    const script = concatBytes(Uint8Array.of(0x52, 33), kc, Uint8Array.of(65), ku, Uint8Array.of(0x52, 0xae));
    const address = base58check(sha256).encode(concatBytes(Uint8Array.of(5), ripemd160(sha256(script))));
    const flipped = base64.encode(concatBytes(Uint8Array.of(header - 4), bytes.subarray(1)));
    const hex = Array.from(script, (b) => b.toString(16).padStart(2, "0")).join("");
    c[1] = address;
    c[5] = flipped;
    c[6] = hex;
    const ls = lines(f);
    ls[18] = c.join(",");
    const forged = await verify(write(ls.join("\n")));
    expect(rowAt(forged.report.rows, 19)).toMatchObject({ proven: false, status: "failed" });
    expect(rowAt(forged.report.rows, 19).reason).toContain("the same key");
    expect(forged.exitCode).toBe(1);
    expect(hexToBytes(hex)).toEqual(script);
  });
});

describe("one address counted twice", () => {
  it("a proven BTC row repeated with its amount fails the repeat; the proven BTC total is the honest one", async () => {
    const f = "okx_por_example_2022-11.csv";
    const honest = await verify(join(DIR, f));
    // every row signed, the amounts claimed (no node): exit 3
    expect(honest.exitCode).toBe(3);
    const forged = await verify(write(`${text(f).trimEnd()}\n${lines(f)[18]}\n`));
    const last = forged.report.rows.at(-1) as Row;
    expect(last).toMatchObject({ proven: false, status: "failed" });
    expect(last.reason).toContain("line 19");
    expect(forged.report.amounts.BTC?.signed).toBe(honest.report.amounts.BTC?.signed);
    expect(forged.exitCode).toBe(1);
    // a bech32 address written again in capitals is the same address
    const bech = (lines(f)[38] as string).split(",");
    expect(bech[1]).toMatch(/^bc1/);
    bech[1] = (bech[1] as string).toUpperCase();
    const upper = await verify(write(`${text(f).trimEnd()}\n${bech.join(",")}\n`));
    expect(upper.report.rows.at(-1)).toMatchObject({ proven: false, status: "failed" });
    expect((upper.report.rows.at(-1) as Row).reason).toContain("line 39");
  });

  it("HTX's USDT-ETH row repeated as USDT-ERC20 (one token on one chain, spelt two ways) fails the repeat; the honest file's row is proven", async () => {
    const f = "huobi_por_2026-02.csv";
    const row = lines(f)[93] as string;
    expect(row).toMatch(/^USDT-ETH,0xa03400e098f4421b34a3a44a1b4e571419517687,/);
    const honest = await verify(join(DIR, f));
    expect(rowAt(honest.report.rows, 94)).toMatchObject({ signed: true, status: "signed" });
    for (const coin of ["USDT-ERC20", "ERC20-USDT"]) {
      const forged = await verify(write(`${text(f).trimEnd()}\n${row.replace(/^USDT-ETH,/, `${coin},`)}\n`));
      const last = forged.report.rows.at(-1) as Row;
      expect(last).toMatchObject({ coin, proven: false, status: "failed" });
      expect(last.reason).toContain("line 94");
      expect(forged.exitCode).toBe(1);
    }
  });
});

describe("amounts that are not plain decimals", () => {
  it.each(["1e9", "+17263933", "-17263933", "0x10", "17263933.5"])(
    "%s: exit 2 naming the line and the amount, nothing checked; the honest file holds",
    async (amount) => {
      const f = "okx_por_example_2022-11.csv";
      const ls = lines(f);
      const c = (ls[18] as string).split(",");
      c[2] = amount;
      ls[18] = c.join(",");
      const r = await runCli(["reserves", "verify", write(ls.join("\n"))]);
      expect(r.stderr).toContain("line 19");
      expect(r.stderr).toContain("amount");
      expect(r.exitCode).toBe(2);
    },
  );
});

describe("amounts finer than the coin's smallest unit", () => {
  const f = "huobi_por_2026-02.csv";
  /** the file with line `line`'s balance (the 4th cell) replaced */
  const withAmount = (line: number, amount: string) => {
    const ls = lines(f);
    const c = (ls[line - 1] as string).split(",");
    c[3] = amount;
    ls[line - 1] = c.join(",");
    return write(ls.join("\n"));
  };

  it.each([
    [41, "6983.700000001", "BTC has 8"],
    [52, "1082073166.3500001", "TRX has 6"],
  ])(
    "line %i, %s: exit 2 naming the line and the coin's places, nothing sent",
    async (line, amount, says) => {
      const r = await runCli(["reserves", "verify", withAmount(line, amount)]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`line ${line}: the amount ${amount} has`);
      expect(r.stderr).toContain(says);
    },
  );

  it("the same places with trailing zeros read (6983.700000000 is 8 places of bitcoin); a coin no table knows keeps its text, said once", async () => {
    const ok = await verify(withAmount(41, "6983.700000000"));
    expect(ok.exitCode).toBe(1); // the file's unsigned rows, as before
    expect(ok.report.rows.find((r) => r.line === 41)).toMatchObject({ signed: true });
    const xrp = await runCli(["reserves", "verify", withAmount(108, "1.123456789012345678901"), "--json"]);
    expect(xrp.exitCode).toBe(1);
    const claim = (JSON.parse(xrp.stdout).findings as { step: string; text: string }[]).find(
      (x) => x.step === "decimals",
    );
    expect(claim?.text).toMatch(/^decimal places not checked for .*XRP \(lines 108, 109\)/);
  });
});

const CAST = join(__dirname, "..", "node_modules", ".bin", "cast");
const cast = (...args: string[]) => execFileSync(CAST, args, { encoding: "utf8" }).trim();
/** anvil's first well-known key: a real key the test signs with, owning nothing */
const KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

describe("a signature over an empty message", () => {
  it("an ETH row signed (cast wallet sign, EIP-191) over nothing fails; the same key over HTX's message holds", async () => {
    const f = "huobi_por_2023-08.csv";
    const address = cast("wallet", "address", "--private-key", KEY);
    const row = (message: string) =>
      `ETH,${address},17814043,10.5,${message},${cast("wallet", "sign", "--private-key", KEY, message)}`;
    const honest = await verify(write(`${text(f).trimEnd()}\n${row("huobi")}\n`));
    expect(honest.report.rows.at(-1)).toMatchObject({ signed: true });
    const empty = await verify(write(`${text(f).trimEnd()}\n${row("")}\n`));
    const last = empty.report.rows.at(-1) as Row;
    expect(last).toMatchObject({ proven: false, status: "failed" });
    expect(last.reason).toContain("empty message");
    expect(empty.exitCode).toBe(1);
  });
});

describe("rows of forms chaingw cannot judge", () => {
  const f = "okx_por_example_2022-11.csv";
  /** an EOS account's row (EOS signatures are not supported) with `amount` base units */
  const eos = (amount: string) =>
    write(
      `${text(f).trimEnd()}\nEOS,okxreserves1,${amount},I am an OKX address,SIG_K1_KfQ57wLFFbVDQ5WzHBoyY1V1TvkQoVS7XjWBHb4aLE6LMo7SWsXWsTVVwDNTQrNLA4bAFAi6sLDKFMiSsBZTmLC4Gn3xSF,,\n`,
    );

  it("with no balance: not counted, the file's verdict its other rows' (signed, claimed: exit 3), the row still named unsupported", async () => {
    const r = await verify(eos("0"));
    expect(r.exitCode).toBe(3);
    expect(r.report.counts).toMatchObject({ signed: 33, unsupported: 1 });
    expect(r.report.rows.at(-1)).toMatchObject({ status: "unsupported", proven: null });
    const j = JSON.parse((await runCli(["reserves", "verify", eos("0"), "--json"])).stdout);
    expect(j.findings).toContainEqual(
      expect.objectContaining({
        status: "claim",
        at: `line ${j.rows.at(-1).line}`,
        text: expect.stringContaining("(no balance: not counted toward the verdict)"),
      }),
    );
  });

  it("with a balance: the only open row, cannot say (exit 3); beside a failing row, does not hold (exit 1)", async () => {
    const r = await verify(eos("5"));
    expect(r.exitCode).toBe(3);
    expect(r.report.rows.at(-1)).toMatchObject({ status: "unsupported" });
    const ls = text(f).trimEnd().split("\n");
    const last = ls.length;
    const withBad = write(
      `${text(f).trimEnd()}\nEOS,okxreserves1,5,I am an OKX address,SIG_K1_KfQ57wLFFbVDQ5WzHBoyY1V1TvkQoVS7XjWBHb4aLE6LMo7SWsXWsTVVwDNTQrNLA4bAFAi6sLDKFMiSsBZTmLC4Gn3xSF,,\nBTC,1HckjUpRGcrrRAtFaaCAUaGjsPx9oYmLaZ,5,I am an OKX address,,,\n`,
    );
    const bad = await verify(withBad);
    expect(bad.exitCode).toBe(1);
    expect(rowAt(bad.report.rows, last + 2)).toMatchObject({ status: "unsigned" });
  });
});

describe("the message signed", () => {
  const okx = "okx_por_example_2022-11.csv";
  const OKX_MESSAGE = "I am an OKX address";
  /** OKX's EVM form: personal_sign over keccak256(message), made by cast */
  const okxRow = (message: string) =>
    `ETH,${cast("wallet", "address", "--private-key", KEY)},1000,${message},${cast("wallet", "sign", "--private-key", KEY, cast("keccak", message))},,`;
  const run = async (file: string, ...more: string[]) => {
    const r = await runCli(["reserves", "verify", file, "--json", ...more]);
    return { ...r, report: JSON.parse(r.stdout) as { rows: Row[]; verdict: string } };
  };

  it("a valid signature over another exchange's message, added to OKX's file: cannot say by default, fails under --challenge; the same key over OKX's message holds", async () => {
    const honest = write(`${text(okx).trimEnd()}\n${okxRow(OKX_MESSAGE)}\n`);
    const forged = write(`${text(okx).trimEnd()}\n${okxRow("I am a Binance address")}\n`);
    for (const more of [[], ["--challenge", OKX_MESSAGE]]) {
      const ok = await run(honest, ...more);
      // signed, the amounts claimed (no node): exit 3, nothing failed
      expect(ok.exitCode).toBe(3);
      expect(ok.report.rows.at(-1)).toMatchObject({ signed: true, status: "signed" });
    }
    const bare = await run(forged);
    expect(bare.exitCode).toBe(3);
    expect(bare.report.rows.at(-1)).toMatchObject({ proven: null, status: "cannot-say" });
    expect(bare.report.rows.at(-1)?.reason).toContain(
      'but signed over "I am a Binance address", none of the messages okx-2022 files sign ("I am an OKX address")',
    );
    const required = await run(forged, "--challenge", OKX_MESSAGE);
    expect(required.exitCode).toBe(1);
    expect(required.report.rows.at(-1)).toMatchObject({ proven: false, status: "failed" });
    expect(required.report.rows.at(-1)?.reason).toContain(
      'signed over "I am a Binance address", not the required message "I am an OKX address" (--challenge)',
    );
    expect(required.report.rows.filter((r) => r.status === "failed")).toHaveLength(1);
  });

  it("--challenge another text than the real file signed: every one of OKX's 33 real rows fails, named", async () => {
    const r = await run(join(DIR, okx), "--challenge", "OKX reserves 2026-11-26");
    expect(r.exitCode).toBe(1);
    expect(r.report.rows).toHaveLength(33);
    for (const row of r.report.rows) {
      expect(row.status).toBe("failed");
      expect(row.reason).toContain('not the required message "OKX reserves 2026-11-26"');
    }
  });
});

describe("rows that shift or hide", () => {
  const f = "okx_por_example_2022-11.csv";
  const withLine = (at: number, edit: (l: string) => string) => {
    const ls = lines(f);
    ls[at - 1] = edit(ls[at - 1] as string);
    return write(ls.join("\n"));
  };
  it.each([
    ["the header repeated mid-file", (l: string) => `${lines(f)[14]}\n${l}`, "line 19", "header"],
    ["a row with more cells than the header", (l: string) => `${l},extra`, "line 19", "cells"],
    [
      "a quoted field left open (a quoted newline)",
      (l: string) => l.replace(",I am", ',"I am'),
      "line 19",
      "quote",
    ],
    [
      "a right-to-left override in the coin",
      (l: string) => l.replace(/^BTC,/, "\u202eBTC,"),
      "line 19",
      "coin",
    ],
    [
      "a zero-width space in the address",
      (l: string) => l.replace("3QVtn", "3QV\u200btn"),
      "line 19",
      "address",
    ],
    [
      "an escape sequence in the network",
      (l: string) => l.replace(/^BTC,/, "BTC\u001b[2K,"),
      "line 19",
      "coin",
    ],
  ])("%s: exit 2 naming the line, nothing checked", async (_what, edit, line, field) => {
    const r = await runCli(["reserves", "verify", withLine(19, edit)]);
    expect(r.stderr).toContain(line);
    expect(r.stderr).toContain(field);
    expect(r.exitCode).toBe(2);
  });
});

describe("proven means signed and read (issue 45, item 5)", () => {
  const okx = "okx_por_example_2022-11.csv";
  const MESSAGE = "I am an OKX address";
  /** a row of `coin` signed by cast's key over OKX's message, in OKX's EVM form */
  const signedRow = (coin: string) =>
    `${coin},${cast("wallet", "address", "--private-key", KEY)},1000000,${MESSAGE},${cast("wallet", "sign", "--private-key", KEY, cast("keccak", MESSAGE))},,`;

  it("a fresh key's row on a network chaingw cannot name (USDT-FOO) is cannot say, never proven; the same key on USDT-ERC20 is signed", async () => {
    const foo = await verify(write(`${text(okx).trimEnd()}\n${signedRow("USDT-FOO")}\n`));
    const erc = await verify(write(`${text(okx).trimEnd()}\n${signedRow("USDT-ERC20")}\n`));
    expect(erc.report.rows.at(-1)).toMatchObject({ coin: "USDT-ERC20", status: "signed", signed: true });
    expect(foo.report.rows.at(-1)).toMatchObject({ coin: "USDT-FOO", status: "cannot-say", proven: null });
    expect(foo.report.rows.at(-1)?.reason).toContain(
      '"FOO" is no network chaingw knows: which chain holds the amount cannot be told, so the signature proves no balance',
    );
    // a network chaingw cannot name: the coin's places cannot be told, so its sums are in base units only,
    // in the field named so (one way to write an amount: `amounts` are coin units)
    expect(foo.report.amounts["USDT-FOO"]).toBeUndefined();
    expect(foo.report.amounts_base_units["USDT-FOO"]).toMatchObject({
      proven: "0",
      signed: "0",
      "cannot-say": "1000000",
    });
    expect(foo.report.rows.at(-1)).toMatchObject({ amount: null, base_units: "1000000" });
    expect(foo.exitCode).toBe(3);
  });

  it("an ETH row's amount raised 10^9-fold with no node: in the signed (claimed) column, never proven; the file's summary line disagrees, exit 1", async () => {
    const honest = await verify(join(DIR, okx));
    const forged = await verify(
      write(text(okx).replace(",58300000000000000,", ",58300000000000000000000000,")),
    );
    expect(honest.report.amounts.ETH?.proven).toBe("0.000000000000000000");
    expect(forged.report.amounts.ETH?.proven).toBe("0.000000000000000000");
    expect(BigInt(forged.report.amounts_base_units.ETH?.signed as string)).toBeGreaterThan(10n ** 25n);
    expect(forged.report.amounts.ETH?.signed).toMatch(/^58300\d+\.\d{18}$/);
    expect(honest.exitCode).toBe(3);
    expect(forged.exitCode).toBe(1);
    const r = await runCli([
      "reserves",
      "verify",
      write(text(okx).replace(",58300000000000000,", ",58300000000000000000000000,")),
    ]);
    expect(r.stdout).toContain(
      "FAILS: line 5: ETH: the file's summary says 5.283400000000000000, its 6 rows sum to 58300005.225148258302172760: the file does not agree with itself",
    );
    expect(r.stdout).toMatch(/coin +│ proven +│ signed, claimed/);
  });
});
