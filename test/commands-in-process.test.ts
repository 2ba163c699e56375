/**
 * Commands that need no node, run in this process through the command tree (src/cli/main.ts) with
 * injected output streams: what a user sees on stdout and stderr, and the exit code, without a process
 * start per case. The same commands through the real bin are covered by the feature tests; this file is
 * the fast check of the face and of the Run's streams (nothing here may reach process.stdout/stderr).
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { inProcess } from "./helpers/in-process.js";

// BIP-322's published vector: "Hello World" signed for this P2WPKH address
const BIP322_ADDRESS = "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l";
const BIP322_SIG =
  "AkcwRAIgZRfIY3p7/DoVTty6YZbWS71bc5Vct9p9Fia83eRmw2QCICK/ENGfwLtptFluMGs2KsqoNSk89pO7F29zJLUx9a/sASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=";

describe("commands in-process, injected streams", () => {
  it("units: exact both ways, --json a string, bad input exit 2 naming the amount", async () => {
    expect(await inProcess(["to-wei", "1.5"])).toEqual({
      exitCode: 0,
      stdout: "1500000000000000000\n",
      stderr: "",
    });
    expect(await inProcess(["from-wei", "0x1bc16d674ec80000", "gwei"])).toEqual({
      exitCode: 0,
      stdout: "2000000000\n",
      stderr: "",
    });
    expect((await inProcess(["--json", "to-wei", "1", "gwei"])).stdout).toBe('"1000000000"\n');
    expect((await inProcess(["--chain", "evm-compat", "to-wei", "2"])).stdout).toBe("2000000\n");
    const bad = await inProcess(["to-wei", "1.5x"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toMatch(/^chaingw: to-wei: amount: /);
    const csv = await inProcess(["--format", "csv", "from-wei", "1"]);
    expect(csv.exitCode).toBe(2);
    expect(csv.stderr).toContain("--format csv is not available for from-wei");
  });

  it("--format csv: a command without a table refuses it by name before reading anything, never JSON instead", async () => {
    for (const [args, name] of [
      [["liabilities", "verify", "/nonexistent/proof.json"], "liabilities verify"],
      [["reserves", "status"], "reserves status"],
      [
        [
          "liabilities",
          "build",
          "--input",
          "/nonexistent/customers.csv",
          "--assets",
          "/nonexistent/a.csv",
          "--out",
          "/nonexistent",
        ],
        "liabilities build",
      ],
      [["config", "show"], "config show"],
    ] as const) {
      const r = await inProcess(["--format", "csv", ...args]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(
        `--format csv is not available for ${name}: it prints no table (json, jsonl or human)`,
      );
    }
    // a command with a table prints it as CSV: the methods registry, sign-help
    expect((await inProcess(["--format", "csv", "methods"])).stdout.split("\n")[0]).toMatch(/^group,method,/);
  });

  it("calldata and decode: the ABI's encoding, no node asked", async () => {
    const one = `${"0".repeat(63)}1`;
    expect(
      await inProcess([
        "calldata",
        "transfer(address,uint256)",
        "0x0000000000000000000000000000000000000001",
        "1",
      ]),
    ).toEqual({ exitCode: 0, stdout: `0xa9059cbb${one}${one}\n`, stderr: "" });
    expect(
      await inProcess(["decode", "balanceOf(address)(uint256)", `0x${"0".repeat(63)}a`, "--ether"]),
    ).toEqual({ exitCode: 0, stdout: "10  (0.00000000000000001 ether)\n", stderr: "" });
    const odd = await inProcess(["decode", "balanceOf(address)(uint256)", "0xabc"]);
    expect(odd.exitCode).toBe(2);
    expect(odd.stderr).toBe('chaingw: decode: expected 0x hex bytes, got "0xabc"\n');
  });

  it("verify-message: BIP-322's vector true (exit 0), another message false (exit 1), not an address exit 2", async () => {
    const ok = await inProcess(["verify-message", BIP322_ADDRESS, BIP322_SIG, "Hello World"]);
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toBe("true\n");
    const other = await inProcess(["verify-message", BIP322_ADDRESS, BIP322_SIG, "Hello World!"]);
    expect(other.exitCode).toBe(1);
    expect(other.stdout).toBe("false\n");
    const bad = await inProcess(["verify-message", "not-an-address", BIP322_SIG, "Hello World"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe("");
  });

  it("methods, completion, help and version write to the run's streams", async () => {
    const rows = JSON.parse((await inProcess(["--json", "methods"])).stdout) as { method: string }[];
    expect(rows.map((r) => r.method)).toContain("getblock");
    const fish = await inProcess(["completion", "fish", "--words", "--", ""]);
    expect(fish.exitCode).toBe(0);
    for (const w of ["reserves", "serve", "liabilities", "solvency", "to-wei", "verify-message"])
      expect(fish.stdout.split("\n")).toContain(w);
    const help = await inProcess(["reserves", "--help"], { COLUMNS: "100" });
    expect(help.exitCode).toBe(0);
    for (const sub of ["scan", "verify", "balances", "report", "status", "abort"])
      expect(help.stdout).toMatch(new RegExp(`^  ${sub}\\b`, "m"));
    expect((await inProcess(["--version"])).stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("usage errors: a near miss gets did-you-mean, a bad param exit 2 before any node is asked", async () => {
    const near = await inProcess(["getblokcount"]);
    expect(near.exitCode).toBe(2);
    expect(near.stderr).toContain("did you mean getblockcount");
    // no node listens on this port: reaching it would be exit 3, not a usage error
    const param = await inProcess(["--url", "http://127.0.0.1:9/", "getblockhash", "minus-one"]);
    expect(param.exitCode).toBe(2);
    expect(param.stderr).toBe(
      'chaingw: getblockhash: invalid height: expected a block height (whole number >= 0), got "minus-one"\n',
    );
    const json = await inProcess(["--json", "--url", "http://127.0.0.1:9/", "getblockhash", "minus-one"]);
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        code: "usage",
        message: 'getblockhash: invalid height: expected a block height (whole number >= 0), got "minus-one"',
      },
    });
  });

  it("config check reads the run's environment: a mistyped key with its line", async () => {
    const f = join(tmpdir(), `chaingw-inproc-${process.pid}.json`);
    writeFileSync(f, '{\n  "profiles": {\n    "a": { "retires": 3 }\n  }\n}\n', { mode: 0o600 });
    const r = await inProcess(["config", "check"], { CHAINGW_CONFIG: f });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("line 3: profiles.a.retires: unknown key (did you mean retries?)");
  });
});
