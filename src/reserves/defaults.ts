/** Defaults of `chaingw reserves`, shared by its options' help (loaded at start-up) and the workflow. */
export const DEFAULT_RANGE: readonly [number, number] = [0, 1000];
/** seconds between plain progress lines with `--progress` and no TTY */
export const DEFAULT_LINE_EVERY_S = 5;
/** seconds to wait for the node to confirm an abort */
export const DEFAULT_ABORT_WAIT_S = 30;
/** seconds to wait for it while the node still prepares the scan (Core 0.21 ignores an abort then) */
export const DEFAULT_PREPARING_ABORT_WAIT_S = 3;
