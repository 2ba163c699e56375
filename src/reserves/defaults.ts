/** Defaults of `chaingw reserves`, shared by its options' help (loaded at start-up) and the workflow. */
export const DEFAULT_RANGE: readonly [number, number] = [0, 1000];
/** seconds between plain progress lines with `--progress` and no TTY */
export const DEFAULT_LINE_EVERY_S = 5;
/** seconds to wait for the node to confirm an abort */
export const DEFAULT_ABORT_WAIT_S = 30;
/** seconds to wait for it while the node still prepares the scan (Core 0.21 ignores an abort then) */
export const DEFAULT_PREPARING_ABORT_WAIT_S = 3;
/**
 * Blocks above a UTXO proof's height `reserves verify` reads, at most, to find where an output spent since was
 * spent (`--walk`; docs/proofs.md, "What verify reads"): 2,016 is a difficulty period of Bitcoin (two weeks),
 * 3.5 days of Litecoin's blocks, 1.4 days of Dogecoin's — a proof checked within a day of its block is walked
 * to the tip on every chain chaingw reads. Beyond it an output still unaccounted for is "cannot say", never
 * "fails": the work a proof asks for is bounded whatever height it claims.
 */
export const DEFAULT_WALK_BLOCKS = 2016;
/** the most `--walk` takes (more blocks than any chain chaingw reads has) */
export const MAX_WALK_BLOCKS = 100_000_000;
