/**
 * The streamed build (src/liabilities/stream.ts: rows and leaves spilled to hash buckets, worker threads
 * building the two halves of the tree) against the in-memory build (build.ts) on the same seed and input:
 * the same commitment, the same tree file byte for byte, the same customers with the same secrets and
 * leaves, the same proofs — under a memory bound small enough that every phase runs in many buckets, with
 * the input's rows shuffled so that a customer's rows are far apart. The worker is dist/'s (npm run build).
 */
import {
  createWriteStream,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildLiabilities } from "../src/liabilities/build.js";
import { ProofSource } from "../src/liabilities/proof.js";
import { seededRandom } from "../src/liabilities/random.js";
import { buildStreamed } from "../src/liabilities/stream.js";
import { runCli } from "./helpers/cli.js";

const N = Number(process.env.LIAB_STREAM_N ?? 60_000);
const dir = mkdtempSync(join(tmpdir(), "chaingw-liab-stream-"));
const ASSETS = join(dir, "assets.csv");
const BALANCES = join(dir, "balances.csv");
const SEED = "chaingw streamed build agreement";
const now = new Date("2026-11-30T00:00:00Z");
const phases: string[] = [];

beforeAll(async () => {
  writeFileSync(ASSETS, "asset,decimals\nBTC,8\nUSDT,6\nETH,18\n");
  let x = 0x2545f491;
  const rnd = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  const rows: string[] = [];
  for (let c = 0; c < N; c++) {
    const id = c % 1000 === 7 ? `ünï-${c}` : `c${c}`;
    rows.push(`${id},BTC,${rnd() % 1000}.${rnd() % 1e8}`);
    if (c % 3) rows.push(`${id},USDT,${rnd() % 100000}.${rnd() % 1e6}`);
    if (c % 5 === 0) rows.push(`${id},ETH,${rnd()}.${rnd()}`);
    if (c % 11 === 0) rows.push(`z${c},BTC,0`);
  }
  // far apart: a customer's rows shuffled through the file
  for (let i = rows.length - 1; i > 0; i--) {
    const j = rnd() % (i + 1);
    [rows[i], rows[j]] = [rows[j], rows[i]];
  }
  writeFileSync(BALANCES, `customer_id,asset,amount\n${rows.join("\n")}\n`);
});

describe("the streamed build agrees with the in-memory build", () => {
  it("same seed, same input: same commitment, tree file, customers and proofs", async () => {
    const common = { input: BALANCES, assets: ASSETS, split: 3, label: "agreement", now };
    const mem = join(dir, "memory");
    const str = join(dir, "streamed");
    const a = await buildLiabilities({ ...common, out: mem, random: seededRandom(SEED) });
    // far below what the processes take anyway: the data budget's floor (4 MB), so that rows, leaves and
    // index entries each go to many buckets
    const b = await buildStreamed({
      ...common,
      out: str,
      random: seededRandom(SEED),
      memory: 12 * 2 ** 20,
      onPhase: (e) => phases.push(e.phase),
    });
    expect(phases).toContain("tree hashed");
    expect(b.commitment).toEqual(a.commitment);
    expect(b.customers).toBe(a.customers);
    expect(readFileSync(join(str, "tree.bin")).equals(readFileSync(join(mem, "tree.bin")))).toBe(true);
    const lines = (d: string) => readFileSync(join(d, "customers.csv"), "utf8").trim().split("\n").sort();
    expect(lines(str)).toEqual(lines(mem));
    const ps = new ProofSource(str);
    const pm = new ProofSource(mem);
    try {
      for (const id of [
        "c0",
        "c1",
        "ünï-7",
        "z11",
        `c${N - 1}`,
        ...Array.from({ length: 300 }, (_, i) => `c${i * 397}`),
      ])
        expect(ps.proofOf(id), id).toEqual(pm.proofOf(id));
      // every customer found through the streamed build's index
      let found = 0;
      for await (const e of ps.store.entries()) {
        const got = ps.store.lookup(e.id);
        if (got && Buffer.compare(got.secret, e.secret) === 0) found++;
      }
      expect(found).toBe(a.customers);
    } finally {
      ps.close();
      pm.close();
    }
  });
});

describe("liabilities build: memory a bound, disk as the files are used", () => {
  // big enough that --memory 400 sizes every phase in several buckets (the rows ~25 MB × 4 × 2 workers
  // against ~80 MB of bucket budget), small enough to run in seconds
  const M = 250_000;
  const big = join(dir, "big.csv");
  const out = join(dir, "bounded");

  beforeAll(async () => {
    const w = createWriteStream(big);
    let x = 12345;
    let chunk = "customer_id,asset,amount\n";
    for (let c = 0; c < M; c++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      chunk += `cust-${c},BTC,${x % 1000}.${x % 1e8}\ncust-${c},USDT,${x % 100000}.${x % 1000}\ncust-${c},ETH,${x}.1\n`;
      if (chunk.length > 1 << 20) {
        w.write(chunk);
        chunk = "";
      }
    }
    w.end(chunk);
    await new Promise<void>((ok) => w.once("finish", () => ok()));
  });

  /** a build of the big input into `to` under `--memory MB` */
  const boundedBuild = (to: string, mb: string) => [
    "liabilities",
    "build",
    "--input",
    big,
    "--assets",
    ASSETS,
    "--out",
    to,
    "--memory",
    mb,
  ];

  it("--memory 400: the peak RSS (main thread and workers) stays under it; work files deleted as they are used", async () => {
    const r = await runCli([...boundedBuild(out, "400"), "--json", "--progress"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    // --progress: each phase's line on stderr, the JSON alone on stdout
    expect(r.stderr).toMatch(
      /liabilities build: customers' leaves made at [\d.]+ s, peak memory \d+ MB, work files \d+ MB/,
    );
    expect(r.stderr).toContain("liabilities build: customers file and index written at");
    expect(j.customers).toBe(M);
    expect(j.peak_rss_bytes).toBeGreaterThan(50 * 2 ** 20);
    expect(j.peak_rss_bytes).toBeLessThan(400 * 2 ** 20);
    // the most the work directory held is the output files themselves, give or take a bucket: every work
    // file (rows, leaves, customers, leaf indices, index entries) deleted once read — kept, they would add
    // ~20 % (the customers' and the leaf-index files alone)
    const outputs = readdirSync(out).reduce((s, f) => s + statSync(join(out, f)).blocks * 512, 0);
    expect(j.peak_work_bytes).toBeGreaterThanOrEqual(outputs * 0.95);
    expect(j.peak_work_bytes).toBeLessThan(outputs * 1.05);
    // nothing left beside --out
    expect(readdirSync(dir).filter((f) => f.startsWith(".bounded.build-"))).toEqual([]);
  });

  it("--memory below what the processes alone take: exit 2 naming it, nothing written", async () => {
    const r = await runCli([...boundedBuild(join(dir, "never"), "399")]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--memory");
    expect(r.stderr).toContain("from 400");
    expect(readdirSync(dir).filter((f) => f.includes("never"))).toEqual([]);
  });
});

describe("the input read in parts by the workers (a file from 1 MiB on), lines counted as readline counts them", () => {
  const common = { assets: ASSETS, split: 2, now };
  // ~2.4 MB: several parts; \r\n, lone \r and \n breaks, blanks and comments, no break after the last line
  const rows = (M: number, extra: (c: number) => string = () => "") => {
    let text = "customer_id,asset,amount\r\n# a comment\r\n";
    const breaks = ["\n", "\r\n", "\r"];
    for (let c = 0; c < M; c++) {
      text += `p${c},BTC,${(c * 7919) % 1000}.${c % 100}${breaks[c % 3]}`;
      text += `p${c},ETH,${c}.5${breaks[(c + 1) % 3]}${c % 97 === 0 ? `\r\n${breaks[c % 3]}` : ""}${extra(c)}`;
    }
    return `${text}p${M},USDT,1`;
  };
  const both = async (name: string, text: string) => {
    const f = join(dir, `${name}.csv`);
    writeFileSync(f, text);
    const refusal = async (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: Error) => e.message + JSON.stringify((e as { details?: unknown }).details ?? ""),
      );
    const mem = buildLiabilities({
      ...common,
      input: f,
      out: join(dir, `${name}-m`),
      random: seededRandom(SEED),
    });
    const str = buildStreamed({
      ...common,
      input: f,
      out: join(dir, `${name}-s`),
      random: seededRandom(SEED),
      memory: 12 * 2 ** 20,
    });
    return {
      mem: await mem.catch(() => undefined),
      str: await str.catch(() => undefined),
      memErr: await refusal(mem),
      strErr: await refusal(str),
    };
  };

  it("mixed line breaks: the same commitment as the in-memory build (readline's lines)", async () => {
    const r = await both("breaks", rows(40_000));
    expect(r.strErr).toBeUndefined();
    expect(r.str!.commitment).toEqual(r.mem!.commitment);
    expect(r.str!.customers).toBe(40_001);
  });

  it("the input removed while its parts are read (as the bench does): every part read from the file opened", async () => {
    const f = join(dir, "gone.csv");
    const text = rows(40_000);
    writeFileSync(f, text);
    let removed = false;
    const str = await buildStreamed({
      ...common,
      input: f,
      out: join(dir, "gone-s"),
      random: seededRandom(SEED),
      memory: 12 * 2 ** 20,
      tickMs: 1,
      onTick: (e) => {
        if (!removed && e.files.in) {
          rmSync(f);
          removed = true;
        }
      },
    });
    expect(removed).toBe(true);
    writeFileSync(f, text);
    const mem = await buildLiabilities({
      ...common,
      input: f,
      out: join(dir, "gone-m"),
      random: seededRandom(SEED),
    });
    expect(str.commitment).toEqual(mem.commitment);
  });

  it("a customer's asset twice, the second far down (another part): the same line named as the in-memory build names", async () => {
    const r = await both(
      "twice",
      rows(40_000, (c) => (c === 31_000 ? "p17,BTC,1\n" : "")),
    );
    expect(r.memErr).toMatch(/line \d+: customer "p17" has BTC twice/);
    expect(r.strErr).toBe(r.memErr);
  });

  it("a refused line far down: the same refusals, in the same words and lines", async () => {
    const r = await both(
      "refused",
      rows(40_000, (c) => (c === 35_000 ? "p1,DOGE,1\np2,BTC,-1\r" : "")),
    );
    expect(r.memErr).toMatch(/line \d+: unknown asset .*line \d+: negative amount/);
    expect(r.strErr).toBe(r.memErr);
  });
});

describe("liabilities build: the disk it needs, checked before the tree", () => {
  it("a file system that cannot hold the tree and the customers file: refused before phase C, nothing left", async () => {
    const out = join(dir, "nodisk");
    // the free space the work directory's file system reports, as statfs would on a nearly full disk
    const err = await buildStreamed({
      input: BALANCES,
      assets: ASSETS,
      out,
      random: seededRandom(SEED),
      free: () => 1_000_000,
    }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(
      /^liabilities build: not enough disk — the build needs [\d.]+ GB more, [\d.]+ GB at its peak \(tree\.bin [\d.]+ GB, customers\.csv ~[\d.]+ GB, customers\.idx [\d.]+ GB\), the file system holds 0\.001 GB free; nothing was written$/,
    );
    expect(readdirSync(dir).filter((f) => f.includes("nodisk"))).toEqual([]);
    // the estimate holds what the build then writes: the same input, enough room
    const needs = Number(/([\d.]+) GB at its peak/.exec((err as Error).message)![1]) * 1e9;
    const ok = await buildStreamed({ input: BALANCES, assets: ASSETS, out, random: seededRandom(SEED) });
    expect(ok.peakWorkBytes).toBeLessThanOrEqual(needs * 1.05);
    expect(ok.peakWorkBytes).toBeGreaterThan(needs * 0.7);
  });
});
