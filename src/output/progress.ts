/**
 * The one progress drawer of every command (a slow single call, a reserves scan, a batch run): on a TTY
 * an ora spinner on stderr; without one, and only when asked, a plain line every few seconds (logs, CI);
 * otherwise nothing. Data goes to stdout: before any data is written the face calls `clear()`, so a
 * progress line never has data glued to it when both streams are the same terminal.
 */

/** A spinner can run on stderr: a TTY with columns (a 0-column pty sends ora's line clearing into an endless loop). */
export const canSpin = (stream: NodeJS.WriteStream = process.stderr): boolean =>
  Boolean(stream.isTTY) && stream.columns > 0;

export interface Progress {
  /** the current state, one line (redrawn on a TTY; a plain line at most every `plainEveryMs` otherwise) */
  update(text: string): void;
  /** a line that must be seen (waiting for a busy slot, a second scan starting) */
  note(text: string): void;
  /** takes the progress line off the screen (before data is written); the next update draws it again */
  clear(): void;
  /** ends the drawing; `final` is left on the screen as a line of its own */
  stop(final?: string): void;
}

export interface ProgressOptions {
  stream?: NodeJS.WriteStream;
  /** without a TTY: a plain line at most this often; undefined = no plain lines */
  plainEveryMs?: number;
  /** on a TTY, show the spinner only once this much time has passed (a fast call shows nothing) */
  delayMs?: number;
  /** prefix of plain lines and notes */
  prefix?: string;
}

type Ora = import("ora").Ora;

export function progress(o: ProgressOptions = {}): Progress {
  const stream = o.stream ?? process.stderr;
  const prefix = o.prefix ?? "chaingw: ";
  const line = (t: string) => stream.write(`${prefix}${t}\n`);
  if (!canSpin(stream)) {
    let last = Number.NEGATIVE_INFINITY;
    const t0 = Date.now();
    return {
      update: (text) => {
        if (o.plainEveryMs === undefined) return;
        const now = Date.now() - t0;
        if (now - last < o.plainEveryMs) return;
        last = now;
        line(text);
      },
      note: line,
      clear() {},
      stop: (final) => {
        if (final !== undefined && o.plainEveryMs !== undefined) line(final);
      },
    };
  }
  let spinner: Ora | undefined;
  let text = "";
  let stopped = false;
  let loading = false;
  const show = () => {
    if (spinner || stopped || loading) return;
    loading = true;
    void import("ora").then(({ default: ora }) => {
      if (stopped) return;
      // discardStdin off: ora would take the terminal's stdin raw and turn Ctrl-C into its own signal
      spinner = ora({ stream, text, discardStdin: false }).start();
    });
  };
  const timer = o.delayMs ? setTimeout(show, o.delayMs) : undefined;
  if (!o.delayMs) show();
  return {
    update: (t) => {
      text = t;
      if (spinner) {
        spinner.text = t;
        if (!spinner.isSpinning) spinner.start();
      }
    },
    note: (t) => {
      if (spinner) {
        spinner.stopAndPersist({ symbol: "ℹ", text: t });
        spinner.start(text);
      } else line(t);
    },
    clear: () => {
      if (spinner?.isSpinning) spinner.stop();
    },
    stop: (final) => {
      stopped = true;
      clearTimeout(timer);
      spinner?.stop();
      if (final !== undefined) line(final);
    },
  };
}

/** `work`, with a spinner on stderr while it takes longer than `delayMs` (TTY only, never with --json). */
export async function withSpinner<T>(
  text: string,
  work: Promise<T>,
  enabled: boolean,
  delayMs = 300,
): Promise<T> {
  if (!enabled || !canSpin()) return work;
  const p = progress({ delayMs });
  p.update(text);
  try {
    return await work;
  } finally {
    p.stop();
  }
}
