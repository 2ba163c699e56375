/**
 * `chaingw serve --config FILE` and `chaingw serve keys add|list|revoke`: the command tree only. The
 * gateway (src/serve/) is imported when a subcommand runs, so the CLI's start-up does not pay for it.
 */
import type { Command } from "commander";
import { UsageError } from "../errors/index.js";
import type { Run } from "./run.js";

interface KeyFlags {
  keys?: string;
  config?: string;
}

/** The key file: --keys, else the one the gateway config names, else ./keys.json. */
async function keysFile(o: KeyFlags): Promise<{ file: string; products?: string[] }> {
  if (o.keys) return { file: o.keys };
  if (o.config) {
    const { keysFileOf } = await import("../serve/config.js");
    const k = keysFileOf(o.config);
    return { file: k.keysFile, products: k.products };
  }
  return { file: "keys.json" };
}

/**
 * Access-log lines leave in batches, one write per 50 ms (or 64 KB) instead of one per request: under
 * load a write per request was a syscall per request on top of the two sockets'.
 */
function batched(write: (text: string) => void) {
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
      lines.push(l);
      size += l.length;
      if (size > 65_536) flush();
      else timer ??= setTimeout(flush, 50);
    },
    flush,
  };
}

export function serveCommand(program: Command, run: Run): void {
  const serve = program
    .command("serve")
    .description("run the gateway of the spec (POST /v1/{product_id}, X-API-Key) in front of your own nodes")
    .option("--config <file>", "gateway config (JSON; see docs/serve.md)")
    .option("--listen <host:port>", "listen here instead of the config's listen")
    .option("--state <url>", "redis://host:port: rate limits, scan pins and the cache shared by replicas")
    .option("--no-metrics", "no /metrics endpoint")
    .action(async (o: { config?: string; listen?: string; state?: string; metrics?: boolean }) => {
      if (!o.config) throw new UsageError("serve: --config <file> is required (docs/serve.md shows one)");
      const { Gateway } = await import("../serve/server.js");
      const access = batched((text) => run.out(text));
      const note = (l: string) => {
        access.flush();
        run.err(`chaingw serve: ${l}`);
      };
      const gw = await Gateway.start({
        configFile: o.config,
        listen: o.listen,
        stateUrl: o.state,
        metrics: o.metrics,
        accessLog: access.line,
        log: note,
        secrets: run.secrets,
      });
      note(
        `listening on ${gw.url} (products ${gw.productNames.join(", ")}; state ${gw.state.kind}); SIGHUP reloads, SIGTERM drains and stops`,
      );
      // the run's interrupt is ours: drain, then return (main exits 0)
      run.interrupt.handled = true;
      run.interrupt.again = "stopped at once, without waiting for the requests in flight";
      const onHup = () => {
        gw.reload().catch((e: unknown) =>
          note(`reload failed, keeping the running config: ${(e as Error).message}`),
        );
      };
      process.on("SIGHUP", onHup);
      await new Promise<void>((resolve) => {
        run.abort.signal.addEventListener(
          "abort",
          () => {
            note(`${String(run.abort.signal.reason)}: draining requests in flight`);
            void gw.close().then(resolve);
          },
          { once: true },
        );
      });
      process.off("SIGHUP", onHup);
      access.flush();
      note("stopped");
    });

  serve
    .command("errors")
    .description("the gateway's error table: case, HTTP status, JSON-RPC code, message (markdown)")
    .action(async () => {
      const { errorTableMarkdown } = await import("../serve/errors.js");
      run.out(errorTableMarkdown());
    });

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
    const { addKey } = await import("../serve/keys.js");
    const { key, entry } = addKey(file, product);
    run.out(
      `key ${entry.id} for ${entry.products.join(", ")} stored in ${file} as its SHA-256; it is shown only now:\n${key}`,
    );
  });

  fileOptions(keys.command("list").description("list the keys: id, products, created")).action(
    async (_o: unknown, command: Command) => {
      // `serve --config` and `keys --config` are one option to a user: whichever level commander gave it to
      const { file } = await keysFile(command.optsWithGlobals() as KeyFlags);
      const { readKeys } = await import("../serve/keys.js");
      const list = readKeys(file);
      if (run.machine)
        run.out(JSON.stringify(list.map(({ id, products, created }) => ({ id, products, created }))));
      else if (list.length === 0) run.out(`no keys in ${file}`);
      else for (const k of list) run.out(`${k.id}  ${k.products.join(",")}  ${k.created ?? ""}`.trimEnd());
    },
  );

  fileOptions(keys.command("revoke").description("remove a key (a running gateway drops it on SIGHUP)"))
    .argument("<id>", "key id, as `keys list` shows")
    .action(async (id: string, _o: unknown, command: Command) => {
      const { file } = await keysFile(command.optsWithGlobals() as KeyFlags);
      const { revokeKey } = await import("../serve/keys.js");
      const k = revokeKey(file, id);
      run.out(`revoked ${k.id} (${k.products.join(", ")}) in ${file}`);
    });
}
