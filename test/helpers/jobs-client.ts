// Clients of the two job APIs for tests, written as a user of each would: the unified API
// (/v1/transcriptions, bearer key) and the job API (/transcribe, x-api-key).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { until } from './polling.js';

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

/** A small client for the job API (/transcribe, key in x-api-key), as a user of it would write. */
export class TranscribeJobClient {
  constructor(
    readonly baseUrl: string,
    readonly key: string,
  ) {}

  submit(body: unknown): Promise<Response> {
    return fetch(`${this.baseUrl}/transcribe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': this.key },
      body: JSON.stringify(body),
    });
  }

  /** Polls every 100 ms until the job is COMPLETED, PARTIAL or FAILED. */
  waitDone(id: string, timeoutMs = 120_000): Promise<any> {
    return until(
      async () => {
        const job = (await (await fetch(`${this.baseUrl}/transcribe/${id}`, { headers: { 'x-api-key': this.key } })).json()) as { status: string };
        return ['COMPLETED', 'PARTIAL', 'FAILED'].includes(job.status) ? job : undefined;
      },
      timeoutMs,
      100,
      `job ${id} did not finish`,
    );
  }

  /** Submits (throwing unless the answer is 202) and waits: the finished job and its first transcript, null when it has none. */
  async run(body: Record<string, unknown>): Promise<{ job: any; transcript: any }> {
    const submitted = await this.submit(body);
    if (submitted.status !== 202) throw new Error(`POST /transcribe: ${submitted.status} ${await submitted.text()}`);
    const job = await this.waitDone(((await submitted.json()) as { job_id: string }).job_id);
    const transcript = job.transcript_urls.length > 0 ? await (await fetch(job.transcript_urls[0])).json() : null;
    return { job, transcript };
  }
}
