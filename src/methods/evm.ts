import type { MethodDef } from "./types.js";

/** The EVM and EVM-compat groups' eth_ methods (filled in by the EVM issue). */
export const evmMethods: MethodDef[] = [];
