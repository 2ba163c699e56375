/**
 * A spinner on stderr for calls that take a while — only on a TTY, only after a short delay (a fast call
 * shows nothing), and never in --json mode. ora is loaded only when a spinner is actually shown.
 */
export async function withSpinner<T>(
  text: string,
  work: Promise<T>,
  enabled: boolean,
  delayMs = 300,
): Promise<T> {
  // a pseudo-terminal that reports 0 columns sends ora's line clearing into an endless loop
  if (!enabled || !process.stderr.isTTY || !(process.stderr.columns > 0)) return work;
  let stop: (() => void) | undefined;
  const timer = setTimeout(async () => {
    const { default: ora } = await import("ora");
    if (stop === null) return;
    const s = ora({ stream: process.stderr, text, discardStdin: false }).start();
    stop = () => s.stop();
  }, delayMs);
  try {
    return await work;
  } finally {
    clearTimeout(timer);
    stop?.();
    stop = null as never;
  }
}
