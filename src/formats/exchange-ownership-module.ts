/**
 * The reader and verifier of exchanges' address/signature files as `AddressFileModule`s: what `load()` of the
 * `okx-2022`, `okx-2024`, `okx-audit-2025` and `htx` entries resolves to (loaded on use: it brings the
 * signature forms).
 */
import { type OwnershipLayout, readOwnershipFile } from "../exchange/ownership/read.js";
import { signaturesOf, verifyOwnership } from "../exchange/ownership/verify.js";
import type { AddressFileModule } from "./types.js";

export const addressFileModule = (layout: OwnershipLayout): AddressFileModule => ({
  kind: "address-file",
  layout,
  read: (text) => readOwnershipFile(text, layout),
  // an older file is read in whatever layout its header names
  previous: (text, name) => signaturesOf(readOwnershipFile(text), name),
  verify: verifyOwnership,
});
