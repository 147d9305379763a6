// Sessions that more than one test file drives the same way.
import { expect } from 'vitest';
import { bearer } from '../helpers/test-gateway.js';
import { twoTurns } from './ws-audio.js';
import { chunks, connect, paced, wsUrl, type StreamClient } from './ws-client.js';

/**
 * A server_vad session with partial results on (its ready message says so) that has sent
 * twoTurns() at real time, 100 ms chunks every 100 ms, and has seen both turns detected.
 */
export async function twoTurnsWithPartials(gatewayUrl: string, key: string): Promise<StreamClient> {
  const { pcm } = twoTurns();
  const client = connect(wsUrl(gatewayUrl, { turn_detection: 'server_vad', partial_results: 'true' }), bearer(key));
  expect((await client.waitFor('ready')).partial_results).toBe(true);
  await paced(client, chunks(pcm, 3200), 100);
  await client.waitFor('turn_detected', (m) => m.turn_id === 2);
  return client;
}
