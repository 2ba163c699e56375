/**
 * The method registry's lookups made per side of the namespace line (methods/index.ts `definitions`): a UTXO
 * name is looked up without the EVM groups' definitions being made, which is right only while no UTXO name is
 * in an EVM namespace and every EVM-group name is. And the lookup gives, for every name, exactly the
 * registry's definitions of it.
 */
import { describe, expect, it } from "vitest";
import { inEvmNamespace } from "../src/chains/index.js";
import { definitions, methodNames, registry } from "../src/methods/index.js";

describe("method registry", () => {
  it("UTXO names are in no EVM namespace; every EVM-group name is in one", () => {
    const misplaced = registry()
      .filter((m) => (m.group === "utxo") === inEvmNamespace(m.name))
      .map((m) => `${m.group}:${m.name}`);
    expect(misplaced).toEqual([]);
    expect(registry().some((m) => m.group === "utxo")).toBe(true);
    expect(registry().some((m) => m.group === "evm")).toBe(true);
    expect(registry().some((m) => m.group === "evm-compat")).toBe(true);
  });

  it("definitions(name) is every group's definition of the name, in registry order", () => {
    for (const name of methodNames())
      expect(definitions(name)).toEqual(registry().filter((m) => m.name === name));
    expect(definitions("getblockcount").map((m) => m.group)).toEqual(["utxo"]);
    expect(definitions("eth_blockNumber").map((m) => m.group)).toEqual(["evm", "evm-compat"]);
    expect(definitions("no_such_method")).toEqual([]);
    expect(definitions("eth_noSuchMethod")).toEqual([]);
  });
});
