/**
 * The settings table (src/config/settings.ts): every row's value through the one precedence, flag > env >
 * profile > default, as `resolveSettings` uses it and as `config show` names its source; the global options
 * and the config checker read the same rows.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GLOBAL_OPTIONS } from "../src/cli/global-options.js";
import { checkConfigText } from "../src/config/check.js";
import { describeSettings, resolveSettings } from "../src/config/config.js";
import { SETTINGS } from "../src/config/settings.js";

const cfg = join(tmpdir(), `chaingw-settings-${process.pid}.json`);
/** A flag's value, an env value and a profile value for a row, each parseable and each different. */
const values = { flag: "7", env: "5", profile: 3 };
const flagValue = (flags: string) => (flags.includes("<") ? values.flag : true);

describe("the settings table", () => {
  it("each row: the flag wins over env and profile, env over profile, the profile over the default", () => {
    for (const r of SETTINGS) {
      const profile = r.profile ? { [r.profile]: values.profile } : {};
      writeFileSync(
        cfg,
        JSON.stringify({ defaultProfile: "p", profiles: { p: { url: "http://127.0.0.1:9/", ...profile } } }),
        { mode: 0o600 },
      );
      const env = { CHAINGW_CONFIG: cfg, ...(r.env ? { [r.env]: values.env } : {}) };
      const sourceOf = (flags: Record<string, unknown>, e: NodeJS.ProcessEnv) =>
        describeSettings(flags, e).find((x) => x.setting === r.setting)?.source;
      const flagged = { [r.flag]: flagValue(r.flags) };
      expect(sourceOf(flagged, env), r.setting).toBe(`flag --${r.setting}`);
      const withFlag = resolveSettings(flagged, env)[r.key];
      expect(withFlag, r.setting).toEqual(r.parse(flagValue(r.flags)));
      if (r.env) {
        expect(sourceOf({}, env), r.setting).toBe(`env ${r.env}`);
        expect(resolveSettings({}, env)[r.key], r.setting).toEqual(r.parse(values.env));
      }
      if (r.profile) {
        expect(sourceOf({}, { CHAINGW_CONFIG: cfg }), r.setting).toBe("profile p");
        expect(resolveSettings({}, { CHAINGW_CONFIG: cfg })[r.key], r.setting).toEqual(
          r.parse(values.profile),
        );
      }
      writeFileSync(
        cfg,
        JSON.stringify({ defaultProfile: "p", profiles: { p: { url: "http://127.0.0.1:9/" } } }),
      );
      expect(sourceOf({}, { CHAINGW_CONFIG: cfg }), r.setting).toBe("default");
      expect(resolveSettings({}, { CHAINGW_CONFIG: cfg })[r.key], r.setting).toEqual(r.parse(undefined));
    }
  });

  it("every row is a global option with its help, and every profile key of a row passes the checker", () => {
    for (const r of SETTINGS) {
      expect(GLOBAL_OPTIONS.find((o) => o.flags === r.flags)?.help, r.setting).toBe(r.help);
      if (r.profile)
        expect(checkConfigText(JSON.stringify({ profiles: { p: { [r.profile]: 1 } } })), r.setting).toEqual(
          [],
        );
    }
    expect(checkConfigText('{"profiles":{"p":{"retries":"3"}}}')).toEqual([
      "line 1: profiles.p.retries: expected a number, got string",
    ]);
  });
});
