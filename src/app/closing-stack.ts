import type { Logger } from 'pino';

/**
 * Shutdown steps in the order their parts were opened; `closeAll()` runs them last-opened
 * first, each once, and logs (never throws) a step that fails so that the rest still run.
 */
export class ClosingStack {
  private readonly steps: { readonly name: string; readonly step: () => Promise<unknown> }[] = [];

  constructor(private readonly logger: Logger) {}

  push(name: string, step: () => Promise<unknown>): void {
    this.steps.push({ name, step });
  }

  async closeAll(): Promise<void> {
    for (const { name, step } of this.steps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        this.logger.error({ err: error, step: name }, 'shutdown step failed');
      }
    }
  }
}
