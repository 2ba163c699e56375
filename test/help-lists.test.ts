/**
 * Help texts that name table rows read them from the tables at build time (scripts/gen-help.mjs writes
 * src/cli/help-lists.ts from src/cli/help-lists-of.ts): the written file is the tables' today, and every
 * row shows in the help a person reads (the built bin's --help).
 */
import { describe, expect, it } from "vitest";
import { KNOWN_NETWORKS, WELL_KNOWN_ASSETS } from "../src/chains/assets.js";
import { MESSAGE_COINS } from "../src/chains/coins.js";
import * as written from "../src/cli/help-lists.js";
import { helpListsOf, publisherOf } from "../src/cli/help-lists-of.js";
import { EXCHANGE_OWNERSHIP } from "../src/formats/exchange-ownership.js";
import { formatsOf } from "../src/formats/registry.js";
import { runCli } from "./helpers/cli.js";

/** commander wraps help at the terminal's width: words are compared with the line breaks taken out */
const unwrapped = (s: string) => s.replace(/\s+/g, " ");

describe("help lists from the tables", () => {
  it("src/cli/help-lists.ts is what the tables give (npm run build rewrites it)", () => {
    expect({ ...written }).toEqual(helpListsOf());
  });

  it("solvency --help names every network --backing takes and every well-known asset", async () => {
    const r = await runCli(["solvency", "--help"]);
    expect(r.exitCode).toBe(0);
    const help = unwrapped(r.stdout);
    for (const n of KNOWN_NETWORKS) expect(help, n.name).toMatch(new RegExp(`[ (]${n.name}[,;) ]`));
    for (const a of WELL_KNOWN_ASSETS) expect(help, a).toContain(a);
    expect(help).toContain("(tron too)");
  });

  it("verify-message --help names every coin whose messages chaingw verifies", async () => {
    const r = await runCli(["verify-message", "--help"]);
    expect(r.exitCode).toBe(0);
    for (const c of MESSAGE_COINS) expect(unwrapped(r.stdout), c.name).toContain(c.name);
    expect(unwrapped(r.stdout)).toContain("Bitcoin or Litecoin address");
  });

  it("liabilities verify --help names every exchange whose inclusion proofs the registry reads", async () => {
    const r = await runCli(["liabilities", "verify", "--help"]);
    expect(r.exitCode).toBe(0);
    const help = unwrapped(r.stdout);
    const exchanges = formatsOf("liabilities").filter((f) => !f.name.startsWith("chaingw"));
    expect(exchanges.length).toBeGreaterThan(8);
    for (const f of exchanges) expect(help, f.name).toContain(publisherOf(f));
    expect(help).toContain("OKX, Bitget");
  });

  it("reserves verify --help names every format and layout --proof-format takes, and their publishers", async () => {
    const r = await runCli(["reserves", "verify", "--help"]);
    expect(r.exitCode).toBe(0);
    const help = unwrapped(r.stdout);
    for (const f of formatsOf("reserves")) expect(help, f.name).toMatch(new RegExp(`[ (]${f.name}[,;) ]`));
    for (const f of EXCHANGE_OWNERSHIP) expect(help, f.name).toContain(publisherOf(f));
  });
});
