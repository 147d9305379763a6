import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

export type Job = Record<string, any> & { id: string; status: string };

/** A small client for the unified job API, as a user of it would write. */
export class JobsClient {
  constructor(
    readonly baseUrl: string,
    readonly key: string,
  ) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.key}`, ...extra };
  }

  async submitUrl(body: Record<string, unknown>): Promise<{ status: number; body: any }> {
    const response = await fetch(`${this.baseUrl}/v1/transcriptions`, {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/json' }),
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  async submitFile(path: string, fields: Record<string, string>, fileField = 'file'): Promise<{ status: number; body: any }> {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append(fileField, new Blob([readFileSync(path)]), basename(path));
    const response = await fetch(`${this.baseUrl}/v1/transcriptions`, { method: 'POST', headers: this.headers(), body: form });
    return { status: response.status, body: await response.json() };
  }

  /** GET is idempotent: retried once when a pooled keep-alive socket turns out to be dead (a restarted server). */
  async get(id: string): Promise<{ status: number; body: any }> {
    const attempt = () => fetch(`${this.baseUrl}/v1/transcriptions/${id}`, { headers: this.headers() });
    let response: Response;
    try {
      response = await attempt();
    } catch {
      response = await attempt();
    }
    return { status: response.status, body: await response.json() };
  }

  /** Polls until the job leaves queued/processing (or `until` says stop). */
  async waitFor(id: string, until: (job: Job) => boolean = (j) => !['queued', 'processing'].includes(j.status), timeoutMs = 60_000): Promise<Job> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { status, body } = await this.get(id);
      if (status !== 200) throw new Error(`GET job ${id}: ${status} ${JSON.stringify(body)}`);
      if (until(body)) return body;
      if (Date.now() > deadline) throw new Error(`job ${id} still ${body.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
