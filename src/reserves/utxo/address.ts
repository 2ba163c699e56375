/**
 * Address lists' checks are the one UTXO address decoder's (`chains/address.ts`): re-exported here, where
 * the reserves workflow's callers and tests have always found them.
 */
export {
  type AddressCheck,
  checkAddress,
  describePrefix,
  mixedFamilies,
  type ParsedAddress,
} from "../../chains/address.js";
