/**
 * `chaingw reserves scan|status|abort`: the command tree only. The workflow (src/reserves/) is imported
 * when a subcommand runs, so start-up stays light.
 */
import type { Command } from "commander";
import type { GlobalFlags } from "../config/config.js";
import {
  DEFAULT_ABORT_WAIT_S,
  DEFAULT_LINE_EVERY_S,
  DEFAULT_PREPARING_ABORT_WAIT_S,
  DEFAULT_RANGE,
} from "../reserves/defaults.js";
import { collect } from "./options.js";
import type { Run } from "./run.js";

export function reservesCommand(program: Command, run: Run): void {
  const reserves = program
    .command("reserves")
    .description("proof of reserves: scan the UTXO set (scantxoutset) or read EVM balances, at one block");

  reserves
    .command("scan")
    .description(
      "one scantxoutset pass over all addresses and descriptors; prints unspents and a summary checked to the satoshi",
    )
    .argument("[addresses...]", "addresses (any Bitcoin-derived chain; the node settles the network)")
    .option("-f, --file <path>", "addresses one per line ('-' = stdin); blank lines and # comments ignored")
    .option(
      "-d, --descriptor <desc>",
      "an output descriptor to scan, repeatable (xpub paths ending /* are ranged)",
      collect,
    )
    .option(
      "--range <A..B|N>",
      `index range of ranged descriptors, A..B; N means 0..N (default ${DEFAULT_RANGE.join("..")})`,
    )
    .option(
      "--csv <file>",
      "also write one CSV row per unspent output to <file> ('-' = stdout, instead of the report)",
    )
    .option(
      "--by-address",
      "subtotals per address (every address asked, zero ones included) instead of per output",
    )
    .option("--cross-check", "run the same scan on the second configured endpoint and compare tip and totals")
    .option(
      "--wait",
      "when the node's scan slot is taken, wait for it (up to --scan-timeout) instead of failing",
    )
    .option(
      "--progress [seconds]",
      `without a TTY: a progress line on stderr every few seconds (default ${DEFAULT_LINE_EVERY_S})`,
    )
    .option(
      "--abort-wait <seconds>",
      `after Ctrl-C, how long to wait for the node to confirm the abort (default ${DEFAULT_ABORT_WAIT_S}; ${DEFAULT_PREPARING_ABORT_WAIT_S} while it still expands descriptors, when it ignores aborts)`,
    )
    .option("--proof <file>", "write the proof document (chaingw-reserves-proof/1) to <file> ('-' = stdout)")
    .option("--challenge <text>", "the text the custodian was asked to sign; kept in the proof")
    .option(
      "--min-conf <n>",
      "outputs with fewer confirmations at the scan height are listed apart, not counted",
    )
    .option("--signatures <file>", "address,signature lines over the challenge: ownership, checked offline")
    .option(
      "--chunk <n>",
      "at most <n> objects per scan; all chunks end at one block (moved ones scanned again)",
    )
    .option("--parallel", "chunks side by side, one per configured node at the same best block")
    .option(
      "--quorum <k>",
      "K distinct nodes (--url once per node) must answer every read alike; a disagreement is exit 1 naming both",
    )
    .addHelpText(
      "after",
      [
        "",
        "The scan proves confirmed outputs at the tip when it started (height and best block are printed);",
        "the mempool is not included. A scan that did not complete (success: false) is never reported: exit 1.",
        "Ctrl-C/SIGTERM aborts the scan on the node once, waits for the node's answer, and exits 130; a second Ctrl-C quits at once.",
        "--json (global) prints the full report as JSON: amounts as exact decimal strings, total_sats a string.",
        "Global options (--url, --gateway, --scan-timeout, ...) are listed under `chaingw --help`.",
      ].join("\n"),
    )
    .action(async (addresses: string[], _o: unknown, command: Command) => {
      const { reservesScan } = await import("./reserves-run.js");
      await reservesScan(run, addresses, command.optsWithGlobals() as GlobalFlags, command.opts());
    });

  reserves
    .command("verify")
    .description(
      "check a proof file against the node now: digest, block, every output existed and was unspent at the proof's height, signatures",
    )
    .argument("<file>", "the proof document ('-' = stdin)")
    .option(
      "--signatures <file>",
      "address,signature lines to check over the proof's challenge (instead of the proof's own)",
    )
    .option(
      "--challenge <text>",
      "the challenge the signatures must be over: a proof signed over another text does not hold",
    )
    .option(
      "--quorum <k>",
      "verify on K distinct nodes (--url once per node): holds only when every node says it holds",
    )
    .addHelpText(
      "after",
      [
        "",
        "Exit codes: 0 the proof holds; 1 it does not (a check the chain answered went against it, each",
        "item named); 2 the file is not a proof (the field and why; nothing sent); 3 cannot say (the node is",
        "behind the proof, of another kind or network, lacks the data, or did not answer).",
        "The proof's own claims (created_at, the challenge) are printed as claims; --challenge requires one.",
        "Works on any node of the chain, without -txindex; blocks above the proof's height are walked only for",
        "outputs spent since.",
      ].join("\n"),
    )
    .action(async (file: string, _o: unknown, command: Command) => {
      const { reservesVerify } = await import("./reserves-verify.js");
      await reservesVerify(run, file, command.optsWithGlobals() as GlobalFlags, command.opts());
    });

  reserves
    .command("balances")
    .description(
      "EVM and EVM-compat: native and token balances of addresses at ONE pinned block, totals exact, as a proof",
    )
    .argument("[addresses...]", "0x addresses (EVM-compat: also T-addresses and 41-hex)")
    .option("-f, --file <path>", "addresses one per line ('-' = stdin); blank lines and # comments ignored")
    .option("--token <address>", "a token contract (ERC-20 / TRC-20 balanceOf), repeatable", collect)
    .option("--native", "the native coin too (the default when no --token is given)")
    .option("--block <n|latest>", "the block to read at (default latest, pinned by number and hash first)")
    .option(
      "--proof <file>",
      "write the proof document (chaingw-evm-balances-proof/1) to <file> ('-' = stdout)",
    )
    .option("--csv <file>", "also write one CSV row per address and asset to <file> ('-' = stdout)")
    .option("--challenge <text>", "the text the custodian was asked to sign; kept in the proof")
    .option(
      "--signatures <file>",
      "address,signature lines over the challenge: EIP-191 (EVM), TIP-191 (TRON) or a contract wallet's EIP-1271",
    )
    .option(
      "--quorum <k>",
      "K distinct nodes (--url once per node) must answer every read alike; a disagreement is exit 1 naming both",
    )
    .addHelpText(
      "after",
      [
        "",
        "The group comes from --chain (evm or evm-compat; default evm). Every read names the pinned block; on",
        "EVM-compat (TRON's JSON-RPC serves state at the head only) the reads run at the head and the head must",
        "be the same block before and after, else they run again (4 attempts). --json prints the proof document.",
        "Exit codes: 2 bad input (the address and line named; nothing sent), 1 a chain answer (not a contract,",
        "balanceOf reverts, the head kept moving), 3 no answer or no state at that block.",
      ].join("\n"),
    )
    .action(async (addresses: string[], _o: unknown, command: Command) => {
      const { reservesBalances } = await import("./reserves-balances.js");
      await reservesBalances(run, addresses, command.optsWithGlobals() as GlobalFlags, command.opts());
    });

  reserves
    .command("report")
    .description(
      "several proofs (UTXO and EVM) as one summary: per chain, per asset, block, proven-owned share",
    )
    .argument("<proofs...>", "proof documents")
    .option("--verify", "verify each proof against its chain first; fail when any does not hold")
    .option(
      "--url-for <group=url>",
      "with --verify: the node for proofs of one group (utxo=..., evm=..., evm-compat=...), repeatable",
      collect,
    )
    .option("--html <file>", "also write the report as one self-contained HTML page (no network fetches)")
    .action(async (files: string[], _o: unknown, command: Command) => {
      const { reservesReport } = await import("./reserves-report.js");
      await reservesReport(run, files, command.optsWithGlobals() as GlobalFlags, command.opts());
    });

  reserves
    .command("status")
    .description("is a scan running on the configured endpoints, and how far is it")
    .action(async (_o: unknown, command: Command) => {
      const { reservesStatus } = await import("./reserves-run.js");
      await reservesStatus(run, command.optsWithGlobals() as GlobalFlags);
    });

  reserves
    .command("abort")
    .description("abort a running scan on the configured endpoints and wait until each node confirms")
    .option(
      "--abort-wait <seconds>",
      `how long to wait for the node to confirm (default ${DEFAULT_ABORT_WAIT_S})`,
    )
    .action(async (_o: unknown, command: Command) => {
      const { reservesAbort } = await import("./reserves-run.js");
      await reservesAbort(run, command.optsWithGlobals() as GlobalFlags, command.opts());
    });
}
