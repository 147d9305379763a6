// Client text commands of GET /v1/ws/transcribe: FORMAT:<format>, TRANSCRIBE, END, CLEAR, PING.
// Keywords are matched case-insensitively after trimming whitespace; formats are lowercased.
import { isStreamFormat, STREAM_FORMATS, type StreamFormat } from '../engines/signal/signal.js';

export type ClientCommand =
  | { readonly kind: 'format'; readonly format: StreamFormat }
  | { readonly kind: 'transcribe' }
  | { readonly kind: 'end' }
  | { readonly kind: 'clear' }
  | { readonly kind: 'ping' }
  | { readonly kind: 'invalid'; readonly code: 'invalid_command' | 'invalid_field_value'; readonly message: string };

/** Longest text frame read as a command; longer ones are refused without being decoded further. */
export const MAX_COMMAND_BYTES = 256;

export function parseCommand(text: string): ClientCommand {
  const trimmed = text.trim();
  const upper = trimmed.toUpperCase();
  switch (upper) {
    case 'TRANSCRIBE':
      return { kind: 'transcribe' };
    case 'END':
      return { kind: 'end' };
    case 'CLEAR':
      return { kind: 'clear' };
    case 'PING':
      return { kind: 'ping' };
  }
  if (upper.startsWith('FORMAT:')) {
    const format = trimmed.slice('FORMAT:'.length).trim().toLowerCase();
    if (!isStreamFormat(format)) {
      return {
        kind: 'invalid',
        code: 'invalid_field_value',
        message: `Unknown format '${format.slice(0, 40)}'. Formats: ${STREAM_FORMATS.join(', ')}.`,
      };
    }
    return { kind: 'format', format };
  }
  const shown = trimmed.length > 40 ? `${trimmed.slice(0, 40)}...` : trimmed;
  return {
    kind: 'invalid',
    code: 'invalid_command',
    message: `Unknown command '${shown}'. Commands: FORMAT:<format>, TRANSCRIBE, END, CLEAR, PING (audio goes in binary messages).`,
  };
}
