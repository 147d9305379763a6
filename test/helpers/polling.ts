// Waiting in tests for something that happens in the background (a delivery, a log line, a job).

/** Polls `what` every `everyMs` until it gives a value other than undefined; throws after `timeoutMs`. */
export async function until<T>(
  what: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
  everyMs = 25,
  message = 'timed out waiting',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(message);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Polls `check` every `everyMs` until it holds; throws `message` after `timeoutMs`. */
export async function untilTrue(check: () => boolean, timeoutMs: number, everyMs: number, message: string): Promise<void> {
  await until(() => (check() ? true : undefined), timeoutMs, everyMs, message);
}
