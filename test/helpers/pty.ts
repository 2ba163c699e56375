/**
 * The built CLI on a real pseudo-terminal, through util-linux `script` (no native node-pty): stdin,
 * stdout and stderr of chaingw are the pty, so `isTTY` holds, spinners draw and Ctrl-C (written as
 * \x03 to the pty) reaches it through the line discipline as SIGINT, as at a keyboard. What the
 * terminal shows is rebuilt by a small screen model (cursor moves and line clears of ora), so a test
 * can assert what a person would read, not the escape codes.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HANG_GUARD_MS, trackChild, trackDir } from "./procs.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(ROOT, "bin", "chaingw");

export interface PtyOptions {
  /** added to a minimal env (PATH, HOME, XDG_CONFIG_HOME, TERM) */
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  /** the whole run is killed after this @default HANG_GUARD_MS */
  timeoutMs?: number;
}

export interface PtyRun {
  /** everything the terminal received so far, escape codes included */
  raw(): string;
  /** the lines a person sees on the terminal now (escape codes applied, trailing blanks trimmed) */
  screen(): string[];
  /** types on the keyboard */
  type(text: string): void;
  ctrlC(): void;
  /** resolves true once the raw output matches, false after `ms` */
  waitFor(re: RegExp, ms: number): Promise<boolean>;
  /** exit code (script -e passes chaingw's on) and ms from spawn to exit */
  done: Promise<{ code: number; ms: number }>;
}

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

let home: string | undefined;
function tempHome(): string {
  if (home === undefined) {
    home = mkdtempSync(join(tmpdir(), "chaingw-pty-"));
    mkdirSync(join(home, ".config"), { recursive: true });
    trackDir(home);
  }
  return home;
}

/** `chaingw ...args` on a pty of cols × rows. */
export function spawnPty(args: string[], o: PtyOptions = {}): PtyRun {
  const h = tempHome();
  const cols = o.cols ?? 100;
  const rows = o.rows ?? 30;
  // script's own stdin is a pipe, so the pty starts 0×0: size it before chaingw looks (ora needs columns)
  const cmd = `stty cols ${cols} rows ${rows}; exec ${[process.execPath, BIN, ...args].map(sq).join(" ")}`;
  const t0 = Date.now();
  const child: ChildProcess = spawn("script", ["-qfec", cmd, "/dev/null"], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: h,
      XDG_CONFIG_HOME: join(h, ".config"),
      TERM: "xterm-256color",
      ...o.env,
    },
    cwd: h,
    stdio: ["pipe", "pipe", "pipe"],
  });
  trackChild(child);
  let out = "";
  const waiters = new Set<() => void>();
  const onData = (c: Buffer) => {
    out += c.toString("utf8");
    for (const w of waiters) w();
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  // a kill only for a hang: the suite's one guard unless the test gives its own
  const timer = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs ?? HANG_GUARD_MS);
  const done = new Promise<{ code: number; ms: number }>((resolve) => {
    child.on("close", (code, sig) => {
      clearTimeout(timer);
      for (const w of waiters) w();
      resolve({ code: code ?? (sig ? 128 + 9 : -1), ms: Date.now() - t0 });
    });
  });
  return {
    raw: () => out,
    screen: () => render(out, cols),
    type: (t) => child.stdin?.write(t),
    ctrlC: () => child.stdin?.write("\x03"),
    waitFor: (re, ms) =>
      new Promise<boolean>((resolve) => {
        if (re.test(out)) return resolve(true);
        const end = setTimeout(() => finish(false), ms);
        const check = () => {
          if (re.test(out)) finish(true);
          else if (child.exitCode !== null || child.signalCode !== null) finish(re.test(out));
        };
        function finish(v: boolean) {
          clearTimeout(end);
          waiters.delete(check);
          resolve(v);
        }
        waiters.add(check);
      }),
    done,
  };
}

/**
 * The screen after `raw`: printable characters at the cursor, CR, LF, backspace, CSI n G (column),
 * n A (up), K (erase in line); other CSI sequences (colours, cursor visibility) and OSC are dropped.
 * Lines wrap at `cols`, as the terminal wraps them.
 */
export function render(raw: string, cols: number): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = () => {
    while (lines.length <= row) lines.push([]);
    return lines[row];
  };
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (ch === "\x1b") {
      const m = /^\x1b\[([?0-9;]*)([A-Za-z])/.exec(raw.slice(i, i + 16));
      if (!m) {
        const osc = /^\x1b\][^\x07]*\x07/.exec(raw.slice(i, i + 256));
        if (osc) i += osc[0].length - 1;
        continue;
      }
      i += m[0].length - 1;
      const n = m[1] === "" ? undefined : Number(m[1]);
      if (m[2] === "G") col = Math.max(0, (n ?? 1) - 1);
      else if (m[2] === "A") row = Math.max(0, row - (n ?? 1));
      else if (m[2] === "K") {
        const l = line();
        if (!n) l.length = Math.min(l.length, col);
        else if (n === 2) l.length = 0;
        else for (let k = 0; k <= col && k < l.length; k++) l[k] = " ";
      }
      continue;
    }
    if (ch === "\r") col = 0;
    else if (ch === "\n") {
      row++;
      line();
    } else if (ch === "\b") col = Math.max(0, col - 1);
    else if (ch >= " ") {
      if (col >= cols) {
        row++;
        col = 0;
      }
      const l = line();
      while (l.length < col) l.push(" ");
      l[col++] = ch;
    }
  }
  const text = lines.map((l) => l.join("").trimEnd());
  while (text.length && text[text.length - 1] === "") text.pop();
  return text;
}
