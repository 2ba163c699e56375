/**
 * `chaingw serve --config FILE` and `chaingw serve keys add|list|revoke`: the command tree only. The
 * gateway (src/serve/) is imported when a subcommand runs, so the CLI's start-up does not pay for it.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { Command } from "commander";
import { UsageError } from "../../errors/index.js";
import type { Run } from "../run.js";

/**
 * Access-log lines leave in batches, one write per 50 ms (or 64 KB) instead of one per request: under
 * load a write per request was a syscall per request on top of the two sockets'.
 */
function batched(write: (text: string) => void, maxBytes: number) {
  let lines: string[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (lines.length === 0) return;
    write(lines.join("\n"));
    lines = [];
    size = 0;
  };
  return {
    line(l: string) {
      // a line that would pass the bound goes in the next write
      if (size + l.length + 1 > maxBytes) flush();
      lines.push(l);
      size += l.length + 1;
      if (size > maxBytes) flush();
      else timer ??= setTimeout(flush, 50);
    },
    flush,
  };
}

/** --workers: a whole number from 1 to 64; default the machine's cores. */
function workerCount(v: string | undefined): number {
  if (v === undefined) return Math.min(64, availableParallelism());
  if (!/^[0-9]+$/.test(v) || Number(v) < 1 || Number(v) > 64)
    throw new UsageError(`--workers: expected a whole number from 1 to 64, got ${JSON.stringify(v)}`);
  return Number(v);
}

/** One gateway in this process: alone (--workers 1), or as worker `slot` of a primary. */
async function serveHere(
  run: Run,
  opts: import("../../serve/server.js").ServeOptions,
  slot: number | undefined,
): Promise<void> {
  const { Gateway } = await import("../../serve/server.js");
  const cluster = slot ? await import("../../serve/cluster.js") : undefined;
  // a worker's lines share the primary's stdout: a write of at most PIPE_BUF bytes is never torn
  const access = batched((text) => run.out(text), slot ? 4000 : 65_536);
  const note = (l: string) => {
    access.flush();
    run.err(`chaingw serve: ${slot ? `worker ${slot}: ` : ""}${l}`);
  };
  const gw = await Gateway.start({
    ...opts,
    accessLog: access.line,
    log: note,
    worker:
      cluster && slot
        ? {
            slot,
            // without Redis, limits and pins are the primary's; with it, Redis's (as for replicas)
            state: opts.stateUrl ? undefined : (bytes) => new cluster.PrimaryState(bytes),
            metrics: cluster.gatewayMetrics,
          }
        : undefined,
  });
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const drain = (why: string) => {
    if (!slot) note(`${why}: draining requests in flight`);
    void gw.close().then(stop);
  };
  const reload = () => {
    gw.reload().catch((e: unknown) =>
      note(`reload failed, keeping the running config: ${(e as Error).message}`),
    );
  };
  if (cluster && slot) {
    let once = false;
    cluster.serveAsWorker({
      reload,
      stop: () => {
        if (!once) drain("stop");
        once = true;
      },
      metricsJson: gw.metrics ? () => gw.metrics?.registry.getMetricsAsJSON() as Promise<unknown> : undefined,
    });
    // a terminal's Ctrl-C reaches the whole group: the worker's own first signal only aborts its run (the
    // interrupt is handled); it drains on the primary's stop
    cluster.announceReady(gw.url, gw.productNames, gw.state.kind, gw.opsUrl);
  } else {
    note(
      `listening on ${gw.url} (products ${gw.productNames.join(", ")}; state ${gw.state.kind}${gw.opsUrl ? `; /readyz and /metrics on ${gw.opsUrl}` : ""}); SIGHUP reloads, SIGTERM drains and stops`,
    );
    process.on("SIGHUP", reload);
    run.abort.signal.addEventListener("abort", () => drain(String(run.abort.signal.reason)), { once: true });
  }
  await stopped;
  process.off("SIGHUP", reload);
  access.flush();
  if (!slot) note("stopped");
}

export function declareServe(program: Command, run: Run): void {
  const serve = program
    .command("serve")
    .description("run the gateway of the spec (POST /v1/{product_id}, X-API-Key) in front of your own nodes")
    .option("--config <file>", "gateway config (JSON; see docs/serve.md)")
    .option("--listen <host:port>", "listen here instead of the config's listen")
    .option("--state <url>", "redis://host:port: rate limits, scan pins and the cache shared by replicas")
    .option("--no-metrics", "no /metrics endpoint")
    .option(
      "--workers <n>",
      "gateway processes sharing the address (default: the machine's cores; 1: this process alone)",
    )
    .action(
      async (o: {
        config?: string;
        listen?: string;
        state?: string;
        metrics?: boolean;
        workers?: string;
      }) => {
        if (!o.config) throw new UsageError("serve: --config <file> is required (docs/serve.md shows one)");
        const { workerSlot } = await import("../../serve/cluster.js");
        const slot = workerSlot();
        const workers = slot ? 1 : workerCount(o.workers);
        const opts = {
          configFile: o.config,
          listen: o.listen,
          stateUrl: o.state,
          metrics: o.metrics,
          secrets: run.secrets,
        };
        // the run's interrupt is ours: drain, then return (main exits 0)
        run.interrupt.handled = true;
        run.interrupt.again = "stopped at once, without waiting for the requests in flight";
        if (workers > 1) {
          const { runPrimary } = await import("../../serve/cluster.js");
          const { checkServe } = await import("../../serve/server.js");
          const note = (l: string) => run.err(`chaingw serve: ${l}`);
          const code = await runPrimary({
            workers,
            check: () => checkServe(opts),
            checkReload: () => checkServe(opts, true),
            note,
            stop: run.abort.signal,
          });
          if (code) run.exitCode = code;
          else note("stopped");
          return;
        }
        await serveHere(run, opts, slot);
      },
    );

  serve
    .command("errors")
    .description("the gateway's error table: case, HTTP status, JSON-RPC code, message (markdown)")
    .action(async () => {
      const { errorTableMarkdown } = await import("../../serve/errors.js");
      run.out(errorTableMarkdown());
    });

  declareKeys(serve, run);
}

interface KeyFlags {
  keys?: string;
  config?: string;
}

/** The key file: --keys, else the one the gateway config names, else ./keys.json. */
async function keysFile(o: KeyFlags): Promise<{ file: string; products?: string[] }> {
  if (o.keys) return { file: o.keys };
  if (o.config) {
    const { keysFileOf } = await import("../../serve/config.js");
    const k = keysFileOf(o.config);
    return { file: k.keysFile, products: k.products };
  }
  return { file: "keys.json" };
}

/** `serve keys add|list|revoke`: the gateway's key file, kept by the CLI (no gateway runs). */
function declareKeys(serve: Command, run: Run): void {
  const keys = serve.command("keys").description("API keys of the gateway (stored as SHA-256 hashes)");
  const fileOptions = (c: Command) =>
    c
      .option("--keys <file>", "key file (default: the one --config names, else ./keys.json)")
      .option("--config <file>", "gateway config naming the key file (and the products)");

  fileOptions(
    keys
      .command("add")
      .description(
        "make a key for the products named by --product (repeatable); prints it once, as the last word, and stores only its hash",
      ),
  ).action(async (_o: unknown, command: Command) => {
    // --product is the global option (repeatable), the same one a gateway call names its product with
    const o = command.optsWithGlobals() as KeyFlags & { product?: string[] };
    if (!o.product?.length) throw new UsageError("serve keys add: --product <id> is required (repeatable)");
    const product = o.product;
    const { file, products } = await keysFile(o);
    const unknown = products ? product.filter((p) => !products.includes(p)) : [];
    if (unknown.length)
      throw new UsageError(
        `--product: ${unknown.join(", ")} not in ${o.config} (it has ${products?.join(", ")})`,
      );
    const { addKey } = await import("../../serve/keys.js");
    const { key, entry } = addKey(file, product);
    run.out(
      `key ${entry.id} for ${entry.products.join(", ")} stored in ${file} as its SHA-256; it is shown only now:\n${key}`,
    );
  });

  fileOptions(keys.command("list").description("list the keys: id, products, created")).action(
    async (_o: unknown, command: Command) => {
      // `serve --config` and `keys --config` are one option to a user: whichever level commander gave it to
      const { file } = await keysFile(command.optsWithGlobals() as KeyFlags);
      const { readKeys } = await import("../../serve/keys.js");
      const list = readKeys(file).map(({ id, products, created }) => ({ id, products, created }));
      run.print(list, () =>
        list.length === 0
          ? `no keys in ${file}${existsSync(file) ? "" : ": no such file yet (serve keys add makes it)"}`
          : list.map((k) => `${k.id}  ${k.products.join(",")}  ${k.created ?? ""}`.trimEnd()).join("\n"),
      );
    },
  );

  fileOptions(keys.command("revoke").description("remove a key (a running gateway drops it on SIGHUP)"))
    .argument("<id>", "key id, as `keys list` shows")
    .action(async (id: string, _o: unknown, command: Command) => {
      const { file } = await keysFile(command.optsWithGlobals() as KeyFlags);
      const { revokeKey } = await import("../../serve/keys.js");
      const k = revokeKey(file, id);
      run.out(`revoked ${k.id} (${k.products.join(", ")}) in ${file}`);
    });
}
