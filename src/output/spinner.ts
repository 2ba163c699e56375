/**
 * A spinner on stderr for calls that take a while — only on a TTY, only after a short delay (a fast call
 * shows nothing), and never in --json mode. ora is loaded only when a spinner is actually shown.
 */
/** A spinner can run on stderr: a TTY with columns (a 0-column pty sends ora's line clearing into an endless loop). */
export const canSpin = (): boolean => Boolean(process.stderr.isTTY) && process.stderr.columns > 0;

export async function withSpinner<T>(
  text: string,
  work: Promise<T>,
  enabled: boolean,
  delayMs = 300,
): Promise<T> {
  if (!enabled || !canSpin()) return work;
  let stop: (() => void) | undefined;
  let done = false;
  const timer = setTimeout(async () => {
    const { default: ora } = await import("ora");
    if (done) return;
    const s = ora({ stream: process.stderr, text, discardStdin: false }).start();
    stop = () => s.stop();
  }, delayMs);
  try {
    return await work;
  } finally {
    done = true;
    clearTimeout(timer);
    stop?.();
  }
}
