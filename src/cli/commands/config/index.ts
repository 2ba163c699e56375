/** `chaingw config init|show|check|profiles`: the family's command tree, one command a file beside this one. */
import type { Command } from "commander";
import type { Run } from "../../run.js";
import { declareCheck } from "./check.js";
import { declareInit } from "./init.js";
import { declareProfiles } from "./profiles.js";
import { declareShow } from "./show.js";

export function declareConfig(program: Command, run: Run): void {
  const config = program
    .command("config")
    .description("the config file: write a starter, show what applies, check it");
  declareInit(config, run);
  declareShow(config, run);
  declareCheck(config, run);
  declareProfiles(config, run);
}
