declare const __VERSION__: string;
/** The package's version, set by the build (scripts/build.mjs); "0.0.0-dev" when run from source. */
export const VERSION = typeof __VERSION__ === "string" ? __VERSION__ : "0.0.0-dev";
