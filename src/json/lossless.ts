/**
 * The JSON module, whose parts the rest of chaingw imports through here: values (value.ts), the lossless
 * parser (parse.ts), the printer (print.ts), the span scanner (scan.ts), numbers as JS numbers (numbers.ts). A number token is never lost.
 */
export { numberOf, plainOf, quantityOf } from "./numbers.js";
export { memberLine, type ParseOptions, parseLossless, rawMember } from "./parse.js";
export { stringifyLossless } from "./print.js";
export { isJsonValueText, scanObject, scanObjectArray } from "./scan.js";
export {
  JsonDuplicateMember,
  JsonNumber,
  type JsonObject,
  JsonSyntaxError,
  type JsonValue,
} from "./value.js";
