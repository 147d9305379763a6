// The `channels` and `channel_names` fields of POST /v1/transcriptions (channels=2: a stereo
// call recording, one speaker per channel): checked here, kept in the job's options, read by
// the job runner (channelNamesOf).
import { ApiError } from '../../platform/errors/api-error.js';
import { CHANNEL_NAMES_RULE, DEFAULT_CHANNEL_NAMES, parseChannelNames } from '../../engines/asr/asr.js';

/** The job options for the fields (empty for mono); throws invalid_field_value. */
export function channelOptions(channels: number | string | undefined, channelNames: string | undefined): Record<string, unknown> {
  const count = channels === undefined ? 1 : Number(channels);
  if (count === 1) {
    if (channelNames !== undefined) throw new ApiError('invalid_field_value', { message: 'channel_names needs channels=2.', param: 'channel_names' });
    return {};
  }
  const names = channelNames === undefined ? [...DEFAULT_CHANNEL_NAMES] : parseChannelNames(channelNames);
  if (names === null) throw new ApiError('invalid_field_value', { message: `channel_names must be ${CHANNEL_NAMES_RULE}.`, param: 'channel_names' });
  return { channels: 2, channel_names: names };
}

/** A stored upload's channel count against channels=2: refused with 400 before a job exists. */
export function checkChannelCount(options: Record<string, unknown>, found: number): void {
  const wanted = options['channels'];
  if (typeof wanted === 'number' && found < wanted) {
    throw new ApiError('invalid_field_value', {
      message: `channels=${wanted} needs audio with ${wanted} channels (a stereo call recording); the file has ${found} channel${found === 1 ? '' : 's'}.`,
      param: 'channels',
    });
  }
}
