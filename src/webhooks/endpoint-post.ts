import { isApiError } from '../platform/errors/api-error.js';
import type { OutboundGuard } from '../platform/net/outbound-guard.js';
import { isRequestTimeout, safeRequest, type SafeResponse } from '../platform/net/safe-http.js';
import { SIGNATURE_HEADER, signatureHeader } from './webhook-signature.js';

/**
 * How the gateway calls its clients' endpoints (webhook deliveries, file translation callbacks):
 * one JSON POST per attempt over HTTPS through the outbound guard, redirects not followed, one
 * timeout for the whole attempt, signed with X-Webhook-Signature when the endpoint has a secret.
 * Attempts are claimed under a lease, and the schedulers sleep until the next one is due.
 */

const USER_AGENT = 'speech-gateway-webhooks/1';
/** Schedulers look at their table at least this often (rows other processes wrote). */
export const MAX_SLEEP_MS = 60_000;
/** A claimed attempt is its process's for the attempt's timeout plus this margin. */
const LEASE_MARGIN_MS = 30_000;

/** Until when a claim made at `now` holds for an attempt of `timeoutSeconds`. */
export const attemptLeaseUntil = (timeoutSeconds: number, now = Date.now()): string => new Date(now + timeoutSeconds * 1000 + LEASE_MARGIN_MS).toISOString();

export interface EndpointAttempt {
  readonly url: string;
  readonly body: string;
  /** X-Webhook-Id: the event, the same on every attempt and redelivery. */
  readonly eventId: string;
  readonly event: string;
  /** X-Webhook-Delivery, for webhook deliveries. */
  readonly deliveryId?: string;
  /** 1 for the first attempt. */
  readonly number: number;
  readonly secret: string | null;
  readonly timeoutMs: number;
}

/**
 * POSTs one attempt; `read` takes the answer within the attempt's deadline. An attempt that got
 * no answer (refused, timed out, not allowed) comes back as `{ error }`.
 */
export async function postToEndpoint<R>(
  guard: OutboundGuard,
  attempt: EndpointAttempt,
  read: (response: SafeResponse, deadline: AbortSignal) => Promise<R>,
): Promise<{ readonly answer: R } | { readonly error: string }> {
  const unixSeconds = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(attempt.body)),
    'user-agent': USER_AGENT,
    'x-webhook-id': attempt.eventId,
    'x-webhook-event': attempt.event,
    ...(attempt.deliveryId === undefined ? {} : { 'x-webhook-delivery': attempt.deliveryId }),
    'x-webhook-attempt': String(attempt.number),
    'x-webhook-timestamp': String(unixSeconds),
  };
  if (attempt.secret !== null) headers[SIGNATURE_HEADER.toLowerCase()] = signatureHeader(attempt.secret, attempt.body, unixSeconds);
  const deadline = AbortSignal.timeout(attempt.timeoutMs);
  try {
    const response = await safeRequest(attempt.url, guard, {
      method: 'POST',
      headers,
      body: attempt.body,
      timeoutMs: attempt.timeoutMs,
      allowedProtocols: ['https:'],
      followRedirects: false,
      signal: deadline,
    });
    return { answer: await read(response, deadline) };
  } catch (error) {
    // The request's own timer and the deadline share one limit: either may fire first.
    if (deadline.aborted || isRequestTimeout(error)) return { error: `No answer within ${Math.round(attempt.timeoutMs / 1000)} s.` };
    return { error: isApiError(error) ? error.message : (error as Error).message };
  }
}
