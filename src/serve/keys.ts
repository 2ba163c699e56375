/**
 * API keys of the gateway: a file of SHA-256 hashes, each with the products it may use. A key is 32
 * random bytes, shown once when made; only its hash is stored, so the file leaks nothing usable. The key
 * has the full entropy of its bytes, so a plain SHA-256 (not a slow password hash) is enough, and a
 * lookup compares every stored hash in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { UsageError } from "../errors/index.js";
import { writeAtomic } from "../util/atomic.js";
import { checkJson, type Shape } from "../util/jsoncheck.js";

export interface KeyEntry {
  id: string;
  /** hex SHA-256 of the key */
  sha256: string;
  products: string[];
  created: string;
}

const SHAPE: Shape = {
  kind: "object",
  required: ["keys"],
  keys: {
    keys: {
      kind: "array",
      items: {
        kind: "object",
        required: ["id", "sha256", "products"],
        keys: {
          id: { kind: "string", pattern: /^[A-Za-z0-9_-]{1,64}$/, expected: "a key id" },
          sha256: { kind: "string", pattern: /^[0-9a-f]{64}$/, expected: "64 lowercase hex digits" },
          products: { kind: "array", items: { kind: "string" } },
          created: { kind: "string" },
        },
      },
    },
  },
};

export function readKeys(file: string): KeyEntry[] {
  if (!existsSync(file)) return [];
  return checkJson<{ keys: KeyEntry[] }>(readFileSync(file, "utf8"), file, SHAPE).keys;
}

function writeKeys(file: string, keys: KeyEntry[]): void {
  // whole or not at all: a gateway reloading on SIGHUP never reads half a file
  writeAtomic(file, `${JSON.stringify({ keys }, null, 2)}\n`, "keys", { mode: 0o600 });
}

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** Makes a key for `products`, stores its hash, and returns the key (the only time it exists in clear). */
export function addKey(file: string, products: string[]): { key: string; entry: KeyEntry } {
  const keys = readKeys(file);
  const key = `cgw_${randomBytes(32).toString("base64url")}`;
  const entry: KeyEntry = {
    id: `k_${randomBytes(6).toString("hex")}`,
    sha256: sha256(key).toString("hex"),
    products: [...new Set(products)],
    created: new Date().toISOString(),
  };
  writeKeys(file, [...keys, entry]);
  return { key, entry };
}

export function revokeKey(file: string, id: string): KeyEntry {
  const keys = readKeys(file);
  const hit = keys.find((k) => k.id === id);
  if (!hit)
    throw new UsageError(
      `no key ${JSON.stringify(id)} in ${file}${keys.length ? ` (it has ${keys.map((k) => k.id).join(", ")})` : ""}`,
    );
  writeKeys(
    file,
    keys.filter((k) => k !== hit),
  );
  return hit;
}

/** The keys of a running gateway: who a presented key is, compared in constant time against every hash. */
export class KeyRing {
  private readonly hashes: { entry: KeyEntry; digest: Buffer; products: Set<string> }[];
  constructor(entries: KeyEntry[]) {
    this.hashes = entries.map((entry) => ({
      entry,
      digest: Buffer.from(entry.sha256, "hex"),
      products: new Set(entry.products),
    }));
  }
  get size(): number {
    return this.hashes.length;
  }
  /** The entry of `key`, or undefined. Every stored hash is compared, whichever matches. */
  find(key: string): { id: string; products: Set<string> } | undefined {
    const d = sha256(key);
    let found: (typeof this.hashes)[number] | undefined;
    for (const h of this.hashes) if (timingSafeEqual(h.digest, d) && !found) found = h;
    return found && { id: found.entry.id, products: found.products };
  }
}
