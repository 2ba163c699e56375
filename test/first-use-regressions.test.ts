/**
 * Regressions of first use: each defect found by using chaingw as a newcomer would, on a real
 * terminal (util-linux `script`, test/helpers/pty.ts), against a real litecoind -regtest, dead endpoints
 * and interrupted scans. Each test names the defect it reproduces and what made it fail before the fix.
 */
import { getEventListeners } from "node:events";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sleep as chaingwSleep } from "../src/util/sleep.js";
import { type FaultServer, refusedUrl, startFaultServer } from "./fixtures/faults.js";
import { runCli, spawnCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { HANG_GUARD_MS, running, sleep, trackDir, until } from "./helpers/procs.js";
import { spawnPty } from "./helpers/pty.js";

const ROOT = new URL("../", import.meta.url);
const TPUB =
  "tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp";
/** a ranged descriptor whose expansion keeps Litecoin Core 0.21 busy for seconds (no funds behind it) */
const LONG_DESC = `wpkh(${TPUB}/0/*)`;
const LONG_RANGE = "0..60000";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-reliability-"));
  trackDir(dir);
});

describe("#1 install: package.json and the lock agree (no network)", () => {
  const pkg = JSON.parse(readFileSync(new URL("package.json", ROOT), "utf8"));
  const lock = JSON.parse(readFileSync(new URL("package-lock.json", ROOT), "utf8"));
  const entries: Record<string, { version?: string; optionalDependencies?: Record<string, string> }> =
    lock.packages;

  /** Does `version` meet `range`? The forms package.json and npm's optional pins use: exact, ^, ~, with
   * the minor and patch left out as bunyan's optional pins do (`~0.8`, `~2`: that part is any) */
  const satisfies = (version: string, range: string): boolean => {
    const m = /^([~^]?)(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
    const v = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
    if (!m || !v) return version === range;
    const [a, b, c] = [Number(m[2]), Number(m[3] ?? 0), Number(m[4] ?? 0)];
    const [x, y, z] = [Number(v[1]), Number(v[2]), Number(v[3])];
    const atLeast = x > a || (x === a && (y > b || (y === b && z >= c)));
    if (m[1] === "") return x === a && (m[3] === undefined || y === b) && (m[4] === undefined || z === c);
    if (m[1] === "~") return atLeast && x === a && (m[3] === undefined || y === b);
    return atLeast && (a > 0 ? x === a : b > 0 ? x === 0 && y === b : y === 0 && z === c);
  };

  /** where npm puts a dependency of the package at `from` (nested first, then hoisted) */
  const resolve = (from: string, dep: string): string | undefined => {
    for (let base = from; ; ) {
      const at = `${base ? `${base}/` : ""}node_modules/${dep}`;
      if (entries[at]) return at;
      if (!base) return undefined;
      const i = base.lastIndexOf("/node_modules/");
      base = i < 0 ? "" : base.slice(0, i);
    }
  };

  it("the lock's root names exactly package.json's dependencies, and each resolves to a version in range", () => {
    const root = entries[""] as Record<string, unknown>;
    expect(lock.name).toBe(pkg.name);
    expect(root.dependencies ?? {}).toEqual(pkg.dependencies ?? {});
    expect(root.devDependencies ?? {}).toEqual(pkg.devDependencies ?? {});
    expect(root.optionalDependencies ?? {}).toEqual(pkg.optionalDependencies ?? {});
    const wrong: string[] = [];
    for (const [dep, range] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
      const at = resolve("", dep);
      const v = at && entries[at].version;
      if (!v || !satisfies(v, range as string)) wrong.push(`${dep}@${range}: locked ${v ?? "nothing"}`);
    }
    expect(wrong).toEqual([]);
  });

  it("every optional dependency of every locked package has its own entry (npm ci on other platforms)", () => {
    // before scripts/complete-lock.mjs: 15 missing (biome, anvil and cast binaries of other platforms)
    const missing: string[] = [];
    for (const [at, e] of Object.entries(entries))
      for (const [dep, range] of Object.entries(e.optionalDependencies ?? {})) {
        const found = resolve(at, dep);
        if (!found) missing.push(`${at || "(root)"} → ${dep}@${range}`);
        else if (!satisfies(entries[found].version ?? "", range)) missing.push(`${dep}: ${range} ≠ lock`);
      }
    expect(missing).toEqual([]);
  });

  it("setup installs with npm ci only (no npm install fallback)", () => {
    const setup = readFileSync(new URL("scripts/setup.sh", ROOT), "utf8");
    const commands = setup.split("\n").filter((l) => !l.trim().startsWith("#"));
    expect(commands.some((l) => /\bnpm ci\b/.test(l))).toBe(true);
    expect(commands.some((l) => /\bnpm (install|i)\b/.test(l))).toBe(false);
  });
});

describe("#4 sleep leaves no abort listener behind", () => {
  it("500 sleeps on one signal: no listener left (before: one per sleep, 'MaxListenersExceededWarning')", async () => {
    const ac = new AbortController();
    for (let i = 0; i < 500; i++) await chaingwSleep(0, ac.signal);
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
    // an abort still ends a pending sleep at once: settled before the next turn of the event loop (a
    // zero timer), which no load delays ahead of it, while the sleep's own timer is a minute away
    const pending = chaingwSleep(60_000, ac.signal).then(() => "ended by the abort");
    ac.abort();
    const first = await Promise.race([pending, sleep(0).then(() => "still pending")]);
    expect(first).toBe("ended by the abort");
  });
});

describe("input refused before anything is sent (no node needed)", () => {
  let fs: FaultServer;
  beforeAll(async () => {
    fs = await startFaultServer({ fault: { kind: "status", status: 500 } });
  });
  afterAll(async () => {
    await fs?.stop();
  });
  const ADDR = "rltc1q7zwtzcqsm3k43ha0ac7nl8cz0hqrhckyctz8z2";

  it("#6 timeouts beyond what a timer holds: exit 2 naming the option, nothing sent, no TimeoutOverflowWarning", async () => {
    // before: Node clamped them to 1 ms, and every call timed out at once with a TimeoutOverflowWarning
    const cases: [string[], string][] = [
      [["--scan-timeout", "3000000", "reserves", "scan", ADDR], "--scan-timeout"],
      [["--request-timeout", "3000000", "getblockchaininfo"], "--request-timeout"],
      [["--timeout", "1e7", "getblockchaininfo"], "--timeout"],
    ];
    for (const [args, option] of cases)
      for (const json of [false, true]) {
        const before = fs.hits;
        const r = await runCli([...(json ? ["--json"] : []), "--url", fs.url, ...args]);
        expect(r.exitCode, args.join(" ")).toBe(2);
        expect(fs.hits).toBe(before);
        expect(r.stdout).toBe("");
        expect(r.stderr).not.toMatch(/TimeoutOverflowWarning/);
        if (json) {
          const e = JSON.parse(r.stderr).error;
          expect(e.code).toBe("usage");
          expect(e.message).toContain(`invalid ${option}`);
        } else
          expect(r.stderr).toMatch(
            new RegExp(`^chaingw: invalid ${option}: .* longer than chaingw can wait`),
          );
      }
  });

  it("#11 --cross-check against one node twice (same URL; localhost and 127.0.0.1): exit 2, nothing sent", async () => {
    // before: both scans went to the one node and the report said "agrees"
    const local = fs.url.replace("127.0.0.1", "localhost");
    for (const pair of [
      [fs.url, fs.url],
      [local, fs.url],
    ]) {
      const before = fs.hits;
      const r = await runCli(["--url", pair[0], "--url", pair[1], "reserves", "scan", "--cross-check", ADDR]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/--cross-check: .* are the same node; a cross-check needs two nodes/);
      expect(fs.hits).toBe(before);
    }
  });

  it("#10 --json reserves scan -f bad.txt carries every bad line and its reason, as human mode lists them", async () => {
    // before: {"error":{"message":"2 problems in the input"}} and nothing else
    const bad = join(dir, "bad.txt");
    writeFileSync(bad, `${ADDR.replace("q7z", "qq7")}\n# comment\n\nhello\n${ADDR}\n`);
    const human = await runCli(["--url", fs.url, "reserves", "scan", "-f", bad]);
    const json = await runCli(["--json", "--url", fs.url, "reserves", "scan", "-f", bad]);
    expect(human.exitCode).toBe(2);
    expect(json.exitCode).toBe(2);
    const e = JSON.parse(json.stderr).error;
    expect(e.message).toBe("reserves: 2 problems in the input; nothing was sent");
    expect(e.details).toHaveLength(2);
    expect(e.details[0]).toMatch(/^line 1 of .*bad\.txt: ".*": bad bech32/);
    expect(e.details[1]).toMatch(/^line 4 of .*bad\.txt: "hello": /);
    // the same facts, line for line
    expect(
      human.stderr
        .split("\n")
        .slice(1, 3)
        .map((l) => l.trim()),
    ).toEqual(e.details);
    expect(fs.hits).toBe(0);
  });

  it("#14 --url without a scheme: both forms suggest http://", async () => {
    // before: "127.0.0.1:29443" and "localhost:28545" got two different messages, neither naming http://
    for (const u of ["127.0.0.1:29443", "localhost:28545"]) {
      const r = await runCli(["--url", u, "getblockchaininfo"]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toBe(
        `chaingw: invalid --url: "${u}" is not a URL (no scheme); did you mean "http://${u}"?\n`,
      );
    }
  });

  it("#14 profiles: the only profile is used with a warning; a bad defaultProfile is named as such", async () => {
    const cfg = join(dir, "config.json");
    writeFileSync(cfg, JSON.stringify({ profiles: { local: { url: fs.url } } }));
    const before = fs.hits;
    const one = await runCli(["getblockchaininfo", "--retries", "0"], { env: { CHAINGW_CONFIG: cfg } });
    // before: silently ignored, and the call went to the default 127.0.0.1:8332
    expect(one.stderr).toContain(
      `chaingw: warning: using profile "local", the only one in ${cfg} (set defaultProfile to silence this)`,
    );
    expect(fs.hits).toBe(before + 1);

    writeFileSync(cfg, JSON.stringify({ defaultProfile: "lcoal", profiles: { local: { url: fs.url } } }));
    const bad = await runCli(["getblockchaininfo"], { env: { CHAINGW_CONFIG: cfg } });
    expect(bad.exitCode).toBe(2);
    // before: "--profile: no profile ..." although no --profile was given
    expect(bad.stderr).toBe(`chaingw: defaultProfile: no profile "lcoal" in ${cfg} (it has "local")\n`);
    expect(fs.hits).toBe(before + 1);
  });

  it("#14 an eth_ method through `rpc` with nothing configured goes to the EVM default 127.0.0.1:8545", async () => {
    // before: to the UTXO default 127.0.0.1:8332 (-v names the endpoint whether or not anything listens)
    const r = await runCli(["-v", "--retries", "0", "--timeout", "5", "rpc", "eth_blockNumber"]);
    expect(r.stderr).toMatch(/eth_blockNumber → http:\/\/127\.0\.0\.1:8545\//);
    expect(r.stderr).not.toMatch(/8332/);
  });
});

describe("#8 batch against a refused port", () => {
  it("8,000 lines: seconds, every line answered with the reason, the summary grouped by cause, exit 3", async () => {
    // before: 16 s (each entry sent alone 3 times with backoff) and "8000 unanswered" without a cause
    const url = await refusedUrl();
    const input = Array.from({ length: 8000 }, (_, i) =>
      JSON.stringify({ method: "getblockhash", params: [i] }),
    ).join("\n");
    for (const size of ["250", "1"]) {
      const r = await runCli(["-v", "--url", url, "batch", "--batch-size", size], { input });
      expect(r.exitCode).toBe(3);
      // seconds, not minutes: a handful of attempts and backoff waits in all (-v names each), the rest
      // failed at once once the endpoint was known refused — not 8,000 entries × 3 passes (the tool's own
      // account, which a loaded host does not change)
      const attempts = r.stderr.match(/: connection refused after \d+ ms\n/g) ?? [];
      const waits = r.stderr.match(/failed on every endpoint; waiting \d+ ms\n/g) ?? [];
      expect(attempts.length).toBeGreaterThan(0);
      expect(attempts.length).toBeLessThan(50);
      expect(waits.length).toBeLessThan(50);
      const verbose = /^chaingw: .*(→ .* after \d+ ms|failed on every endpoint; waiting \d+ ms)$/;
      const lines = r.stdout.trimEnd().split("\n");
      expect(lines).toHaveLength(8000);
      lines.forEach((l, i) => {
        const o = JSON.parse(l);
        expect(o.id).toBe(i + 1);
        expect(o.error.code).toBe("transport");
        expect(o.error.message).toMatch(/connection refused$/);
      });
      const summary = r.stderr
        .split("\n")
        .filter((l) => l && !verbose.test(l))
        .join("\n");
      expect(summary).toMatch(
        /^chaingw batch: 0 ok, 0 node errors, 0 bad input lines, 8000 unanswered: 8000 × .*connection refused$/,
      );
    }
  });

  it("on a terminal the progress counts failures apart from answers", async () => {
    const url = await refusedUrl();
    const file = join(dir, "dead.jsonl");
    writeFileSync(
      file,
      Array.from({ length: 3000 }, (_, i) => JSON.stringify({ method: "getblockhash", params: [i] })).join(
        "\n",
      ),
    );
    const t = spawnPty(["--url", url, "batch", file, "--batch-size", "100", "--concurrency", "1"]);
    const { code } = await t.done;
    expect(code).toBe(3);
    // before: "3000 done" as if answered
    expect(t.raw()).toMatch(/chaingw batch: \d+ done \(0 ok, \d+ failed\)/);
    expect(t.raw()).not.toMatch(/done \(\d+ ok\)(?!,)/);
  });
});

describe("#14 bare `chaingw batch` on a terminal", () => {
  it("says it reads JSON lines from the terminal and how to end, instead of waiting silently", async () => {
    const t = spawnPty(["--url", await refusedUrl(), "batch"]);
    expect(await t.waitFor(/reading JSON lines from the terminal .*Ctrl-D ends/, HANG_GUARD_MS)).toBe(true);
    t.type("\x04");
    expect((await t.done).code).toBe(0);
  });
});

describe("against a real litecoind", () => {
  let ltc: LitecoinNode;
  let proxy: FaultServer;
  let addr: string;
  /** scantxoutset actions seen by the proxy, in order */
  let actions: string[];

  beforeAll(async () => {
    ltc = await startLitecoind();
    addr = await ltc.newAddress();
    await ltc.mine(5, addr);
    await ltc.mine(101);
    proxy = await startFaultServer({ upstream: { url: ltc.url, user: ltc.user, password: ltc.password } });
    actions = [];
    proxy.setMethodFault("scantxoutset", { kind: "pass" }, (p) => {
      actions.push(String(p[0]));
      return false;
    });
    // one finished scan: the node's figure is now 100, as on any node that has scanned before
    await ltc.rpc("scantxoutset", ["start", [`addr(${addr})`]]);
  });

  afterAll(async () => {
    await proxy?.stop();
    await ltc?.stop();
  });

  const url = () => proxy.url.replace("//", `//${ltc.user}:${ltc.password}@`);
  /** the endpoint as a person sets it up (a password in --url draws a warning on a terminal) */
  const env = () => ({ CHAINGW_URL: url() });
  const status = () => ltc.rpc<{ progress: number } | null>("scantxoutset", ["status"]);
  /** resolves at the time (ms since epoch) the node first reports no scan, polling every 50 ms */
  const idleAt = async (): Promise<number> => {
    await until("the node ending its scan", async () => (await status()) === null, undefined, 50);
    return Date.now();
  };
  /**
   * The scantxoutset requests the tool sent after the node gave its word on the scan (the start's answer, or
   * a status answering no scan), from the proxy's log since event `from`: a tool done when the node is done
   * sends none, but for one request already on its way (a status poll, or an abort decided from the poll
   * answered just before the word). One waiting out --abort-wait polls on and on.
   */
  const sentAfterNodesWord = (from: number): string[] => {
    const seen = proxy.events.slice(from).filter((e) => e.method === "scantxoutset");
    const word = seen.findIndex(
      (e) =>
        e.event === "answered" &&
        (e.params[0] === "start" || (e.params[0] === "status" && /"result":\s*null/.test(e.body ?? ""))),
    );
    expect(word, "the node's word on the scan, in the proxy's log").toBeGreaterThanOrEqual(0);
    return seen
      .slice(word + 1)
      .filter((e) => e.event === "arrived")
      .map((e) => String(e.params[0]));
  };
  /** until the node reports a scan, while `going` (the process or call that starts it) is still at work */
  const untilScanning = (going?: () => boolean) =>
    until("a scan starting on the node", async () => (await status()) !== null, going);

  it("#3 Ctrl-C on a terminal during a scan: the documented lines, one abort, done soon after the node", async () => {
    actions.length = 0;
    // --abort-wait: wait for the node's word even while it prepares the scan (by default chaingw returns
    // after a few seconds then: test/operator.test.ts)
    const t = spawnPty(
      ["reserves", "scan", "--descriptor", LONG_DESC, "--range", LONG_RANGE, "--abort-wait", "600"],
      {
        env: env(),
        cols: 200,
      },
    );
    expect(await t.waitFor(/preparing for \d+ s/, HANG_GUARD_MS)).toBe(true);
    await untilScanning(running(t.done));
    // the proxy's log from here: the node scans (a status before it began answered "no scan" too)
    const from = proxy.events.length;
    t.ctrlC();
    const { code } = await t.done;
    await idleAt();
    expect(code).toBe(130);
    // done when the node said the scan was over: nothing asked of it after that but a poll on its way
    // (before: ~25 s; a clock's "within 3 s of the node" failed at load 10)
    const after = sentAfterNodesWord(from);
    // at most one request already on its way when the word came: a status poll, or (at load 10, seen once) the
    // second abort the tool had decided on from a status poll answered just before the node's word
    expect(after.length).toBeLessThanOrEqual(1);
    const screen = t.screen().join("\n");
    // before: "AbortError: This operation was aborted" twice, ~25 s and 25 abort calls on regtest
    expect(t.raw()).not.toMatch(/AbortError|operation was aborted|at .*\.cjs:\d+/);
    expect(screen).toMatch(
      /^chaingw: SIGINT: sending abort to http:\/\/127\.0\.0\.1:\d+\/ and waiting for the node to confirm/m,
    );
    expect(screen).toMatch(
      /^chaingw: interrupted \(SIGINT\): the scan did not complete; nothing was proven$/m,
    );
    // what the node did, from the node: Core 0.21 loses an abort sent while it expands descriptors
    expect(screen).toMatch(
      /the scan completed before the abort took effect \(it answered success: true|scan aborted; the node reports no scan running \(the scan answered success: false/,
    );
    // one abort; a second only when status showed the pass begin after the first (Core 0.21 loses an
    // abort sent while it expands descriptors; on a loaded machine the poll may see the pass begin)
    expect(actions.filter((a) => a === "abort").length).toBeGreaterThanOrEqual(1);
    expect(actions.filter((a) => a === "abort").length).toBeLessThanOrEqual(2);
    expect(actions.filter((a) => a === "start")).toHaveLength(1);
    // no spinner left drawing after the interrupt
    expect(t.screen().at(-1)).not.toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  });

  it("#3 a second Ctrl-C quits at once and still says the node may be scanning and how to stop it", async () => {
    const t = spawnPty(["reserves", "scan", "--descriptor", LONG_DESC, "--range", LONG_RANGE], {
      env: env(),
      cols: 200,
    });
    expect(await t.waitFor(/preparing for \d+ s/, HANG_GUARD_MS)).toBe(true);
    await untilScanning(running(t.done));
    const aborts = () => actions.filter((a) => a === "abort").length;
    const aborts0 = aborts();
    t.ctrlC();
    expect(await t.waitFor(/sending abort/, HANG_GUARD_MS)).toBe(true);
    await until("the abort at the node", () => aborts() > aborts0, running(t.done));
    await sleep(300);
    const second = proxy.events.length;
    t.ctrlC();
    const { code } = await t.done;
    expect(code).toBe(130);
    // it did not wait for the node: the node still scans as the process is gone, and the tool asked nothing
    // more of it after the second Ctrl-C but a status poll already on its way (a clock's "< 2 s" failed at
    // load 10)
    expect(await status()).not.toBeNull();
    const after = proxy.events.slice(second).filter((e) => e.event === "arrived");
    expect(after.map((e) => `${e.method} ${e.params[0]}`).filter((m) => m !== "scantxoutset status")).toEqual(
      [],
    );
    expect(after.length).toBeLessThanOrEqual(1);
    const screen = t.screen().join("\n");
    expect(screen).toMatch(/SIGINT again: quit without waiting for the node to confirm the abort/);
    expect(screen).toMatch(
      /the node may still be scanning: `chaingw reserves status` shows it, `chaingw reserves abort` stops it/,
    );
    expect(t.raw()).not.toMatch(/AbortError/);
    await idleAt();
  });

  it("#3 SIGTERM in --json: one JSON error with the facts of the human line (aborts sent, node still scanning)", async () => {
    // before: --json waited the whole --abort-wait and left the scan running
    const p = spawnCli([
      "--json",
      "--url",
      url(),
      "reserves",
      "scan",
      "--descriptor",
      LONG_DESC,
      "--range",
      LONG_RANGE,
      "--abort-wait",
      "600",
    ]);
    let err = "";
    p.stderr?.on("data", (c: Buffer) => {
      err += c.toString();
    });
    await untilScanning(running(p));
    await sleep(200);
    const from = proxy.events.length;
    process.kill(p.pid!, "SIGTERM");
    const r = await p;
    await idleAt();
    expect(r.exitCode).toBe(130);
    expect(r.stdout).toBe("");
    // done when the node said the scan was over (a clock's "within 3 s of the node" failed at load 10)
    const after = sentAfterNodesWord(from);
    // at most one request already on its way when the word came: a status poll, or (at load 10, seen once) the
    // second abort the tool had decided on from a status poll answered just before the node's word
    expect(after.length).toBeLessThanOrEqual(1);
    const last = err.trimEnd().split("\n").at(-1)!;
    const e = JSON.parse(last).error;
    expect(e.code).toBe("interrupted");
    expect(e.message).toBe("interrupted (SIGTERM): the scan did not complete; nothing was proven");
    expect(e.interrupted_by).toBe("SIGTERM");
    // one abort; a second only when status showed the node ignored the first (Core 0.21 loses an abort sent
    // during descriptor expansion, and a loaded machine's status poll may see the pass begin)
    expect(e.aborts_sent).toBeGreaterThanOrEqual(1);
    expect(e.aborts_sent).toBeLessThanOrEqual(2);
    expect(e.node_scanning).toBe(false);
    expect(e.start_answer).toMatch(/^success: (true|false)$/);
    expect(e.details[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/: (the scan completed before|scan aborted)/);
  });

  it("#2 --json reserves abort on another client's scan: the node's facts, never 'scan aborted'", async () => {
    // another client's long scan; Core 0.21 loses an abort sent during descriptor expansion
    const other = ltc.rawCall(
      JSON.stringify({
        id: 9,
        method: "scantxoutset",
        params: ["start", [{ desc: LONG_DESC, range: [0, 60000] }]],
      }),
    );
    await untilScanning(running(other));
    const r = await runCli(["--json", "--url", url(), "reserves", "abort", "--abort-wait", "600"]);
    const answer = await other;
    expect(r.exitCode).toBe(0);
    const [row] = JSON.parse(r.stdout);
    expect(row).toMatchObject({ was_running: true, node_scanning: false, confirmed: true });
    expect(row.aborts_sent).toBeGreaterThanOrEqual(1);
    expect(row.aborts_sent).toBeLessThanOrEqual(2);
    // before: "scan aborted; the node reports no scan running" while the scan completed with success: true
    expect(row.statement).not.toMatch(/scan aborted/);
    if (/"success":\s*true/.test(answer.text))
      expect(row.statement).toMatch(/now reports no scan running|has now ended/);
  });

  it("#5 #4 a long scan on a terminal: 'preparing' and for how long, never a leftover 100%, no listener warning", async () => {
    // ~12 s of descriptor expansion: 12 status polls at 1 s (before the sleep fix: MaxListenersExceededWarning)
    const t = spawnPty(["reserves", "scan", addr, "--descriptor", LONG_DESC, "--range", "0..100000"], {
      env: env(),
      cols: 200,
    });
    const { code } = await t.done;
    expect(code).toBe(0);
    const raw = t.raw();
    expect(raw).not.toMatch(/MaxListenersExceededWarning|Warning:/);
    // before: "100% (preparing or finishing)" for the whole scan
    expect(raw).not.toMatch(/\d+% \(preparing/);
    // a 100% is only this pass's own, once it began (a fast host can catch the pass at its end)
    for (const m of raw.matchAll(/100% of the UTXO set[^\n\x1b]*/g))
      expect(m[0]).toMatch(/the pass began after/);
    const secs = new Set(
      [
        ...raw.matchAll(
          /preparing for (\d+) s \(expanding descriptors; \d+% is the previous scan's figure\)/g,
        ),
      ].map((m) => m[1]),
    );
    expect(secs.size).toBeGreaterThanOrEqual(3);
    const screen = t.screen();
    // the report, and no progress line left on the screen or glued to it
    expect(screen.join("\n")).toMatch(/Proof of reserves: scan complete/);
    expect(screen.some((l) => /preparing for|⠋|⠙|⠹/.test(l))).toBe(false);
  });

  it("#5 reserves status: a scan being prepared is 'preparing', not 100%", async () => {
    const other = ltc.rawCall(
      JSON.stringify({
        id: 9,
        method: "scantxoutset",
        params: ["start", [{ desc: LONG_DESC, range: [0, 100_000] }]],
      }),
    );
    await untilScanning(running(other));
    const human = await runCli(["--url", url(), "reserves", "status"]);
    const json = await runCli(["--json", "--url", url(), "reserves", "status"]);
    await other;
    expect(human.exitCode).toBe(0);
    // before: "scan running, 100%" for a scan that had just started
    expect(human.stdout).toMatch(
      /: scan running: preparing \(expanding descriptors\); the node still shows 100%/,
    );
    expect(JSON.parse(json.stdout)[0]).toMatchObject({ running: true, progress: 100, phase: "preparing" });
    const idle = await runCli(["--json", "--url", url(), "reserves", "status"]);
    expect(JSON.parse(idle.stdout)[0]).toMatchObject({ running: false, progress: null, phase: null });
  });

  it("#12 reserves --range A..B (documented), also A-B and A:B: the same scan", async () => {
    const desc = `wpkh(${TPUB}/1/*)`;
    const out: string[] = [];
    for (const range of ["0..20", "0-20", "0:20"]) {
      const r = await runCli([
        "--json",
        "--url",
        url(),
        "reserves",
        "scan",
        "--descriptor",
        desc,
        "--range",
        range,
      ]);
      expect(r.exitCode, range).toBe(0);
      const j = JSON.parse(r.stdout);
      out.push(JSON.stringify([j.total_sats, j.height, j.unspents]));
    }
    expect(new Set(out).size).toBe(1);
    const help = await runCli(["reserves", "scan", "--help"]);
    expect(help.stdout).toMatch(/--range <A\.\.B\|N>/);
  });

  it("#13 a --range on a terminal: data lines never have progress glued to them", async () => {
    // before: "chaingw batch: 5 done{"id":1,...}" on one line
    const t = spawnPty(
      ["getblockstats", "--range", "1..100", '["height","txs"]', "--batch-size", "5", "--concurrency", "1"],
      { env: env(), cols: 200 },
    );
    const { code } = await t.done;
    expect(code).toBe(0);
    const screen = t.screen();
    expect(screen).toHaveLength(100);
    screen.forEach((l, i) => {
      expect(l).toBe(`{"id":${i + 1},"result":{"height":${i + 1},"txs":1}}`);
    });
  });

  it("#6 a long timeout under the cap is kept, not shortened", async () => {
    const r = await runCli([
      "--url",
      url(),
      "--request-timeout",
      "2000000",
      "--timeout",
      "2000000",
      "getblockchaininfo",
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
  });
});
