// Stable status codes returned by the DSP core and passed unchanged to TypeScript
// (src/engines/runtime/native-status.ts mirrors this list). Never renumber; only append.
#pragma once

#include <cstdint>

namespace gw {

enum class Status : int32_t {
  kOk = 0,
  // The ring buffer reached its hard capacity; samples that did not fit were dropped.
  kBufferFull = 1,
  kInvalidArgument = 2,
  // The handle was closed, or the stream is in a failed state after a fatal parse error.
  kStreamFailed = 3,

  // Opus (opus_raw_16k messages and WebM frames).
  kOpusInvalidPacket = 10,  // libopus rejected the packet
  kOpusFrameDuration = 11,  // opus_raw_16k: a message is not exactly one 20 ms packet
  kOpusEmptyPacket = 12,    // zero-length message or frame

  // WebM / Matroska.
  kWebmInvalid = 20,              // malformed EBML (bad ID or size, child larger than parent, ...)
  kWebmNotWebm = 21,              // no EBML header first, or DocType is not webm/matroska
  kWebmUnsupportedCodec = 22,     // the audio track's CodecID is not A_OPUS
  kWebmNoAudioTrack = 23,         // a block arrived before any audio track was declared
  kWebmUnsupportedChannels = 24,  // more than 2 channels (multistream Opus)
  kWebmBlockTooLarge = 25,        // an audio block larger than the demuxer's block buffer
  kWebmUnknownSizeElement = 26,   // unknown size on an element other than Segment or Cluster
  kWebmInvalidLacing = 27,        // lace sizes do not add up to the block size

  // WAV.
  kWavInvalid = 30,                // not RIFF/WAVE, fmt missing before data, bad fmt fields
  kWavNotPcm = 31,                 // format tag is not PCM or IEEE float (e.g. mu-law, ADPCM, MP3)
  kWavUnsupportedSampleRate = 32,  // outside 8..192 kHz or no small rational ratio to 16 kHz
  kWavUnsupportedBitDepth = 33,
  kWavUnsupportedChannels = 34,  // 0 or more than 8 channels

  kUnsupportedSampleRate = 40,  // resampler cannot convert between these rates
};

inline int32_t ToInt(Status s) { return static_cast<int32_t>(s); }

}  // namespace gw
