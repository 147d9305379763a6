// One per WebSocket connection: turns the client's audio messages, in any of the API's
// formats, into 16 kHz mono int16 in a RingBuffer, running the energy VAD and endpointer
// on the way.
//
//   pcm_s16le      bytes -> ring                                       (odd bytes carried)
//   pcm_s16le_48k  bytes -> float -> polyphase 48k->16k -> ring
//   wav            WavParser -> mono float -> polyphase (if not 16 kHz) -> ring
//   webm_opus      WebmDemuxer -> libopus (decoded at 16 kHz by default, or at 48 kHz then
//                  polyphase) -> ring
//   opus_raw_16k   one 20 ms packet per message -> libopus at 16 kHz -> ring
//   mulaw_8k       G.711 mu-law bytes (8 kHz) -> float -> polyphase 8k->16k -> ring
//   alaw_8k        G.711 A-law bytes (8 kHz) -> float -> polyphase 8k->16k -> ring
//
// Push() is synchronous and reads the message in place: the caller's bytes are only read
// during the call, and the single copy is the write into the ring (partial WebM elements and
// partial PCM/WAV frames are the exception: they are copied into small carry buffers until
// the next message completes them). Every buffer is allocated in Create() or SetFormat()
// (and a WAV file's fmt chunk creates that rate's resampler); Push() allocates nothing
// except when the ring grows toward its hard capacity (see RingBuffer).
//
// Positions (ring, VAD and events) count only samples that entered the ring: when the ring
// is full the rest of the message's audio is dropped, Push() returns kBufferFull, and the
// server is expected to close the connection (1009).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "dsp/endpoint-event.h"
#include "dsp/endpointer.h"
#include "dsp/energy-vad.h"
#include "dsp/g711.h"
#include "dsp/opus-frame-decoder.h"
#include "dsp/resampler.h"
#include "dsp/ring-buffer.h"
#include "dsp/status.h"
#include "dsp/wav-parser.h"
#include "dsp/webm-demuxer.h"

namespace gw {

enum class AudioFormat : int32_t {
  kPcmS16le = 0,
  kPcmS16le48k = 1,
  kWav = 2,
  kWebmOpus = 3,
  kOpusRaw16k = 4,
  kMulaw8k = 5,
  kAlaw8k = 6,
};
bool IsAudioFormat(int32_t value);

struct FrontEndConfig {
  AudioFormat format = AudioFormat::kPcmS16le;
  size_t max_buffer_samples = 25000000;    // 50 MB of int16
  size_t initial_buffer_samples = 128000;  // 8 s; doubles on demand
  int webm_decode_rate = 16000;            // 16000 or 48000 (then polyphase to 16 kHz)
  bool energy_vad = true;                  // run EnergyVad + Endpointer on the output
  EnergyVadConfig vad;                     // sample_rate must be 16000
  EndpointerConfig endpointer;             // hop_samples must equal vad.frame_samples
  ResamplerQuality quality;
};

// Counters, all since Create() unless noted.
struct FrontEndCounters {
  uint64_t appended_last = 0;  // samples the last Push()/Flush() added to the ring
  uint64_t dropped_last = 0;   // samples the last Push()/Flush() could not store
  uint64_t dropped_total = 0;
  uint64_t bytes_in = 0;
  uint64_t packets_decoded = 0;
  uint64_t packets_rejected = 0;
};

class StreamFrontEnd final : private WebmFrameSink, private WavSampleSink {
 public:
  static constexpr int kOutputRate = 16000;
  static constexpr int kRawOpusFrameSamples = 320;  // 20 ms at 16 kHz

  static Status Validate(const FrontEndConfig& config);
  // Returns nullptr (and the reason in *status) for an invalid configuration.
  static std::unique_ptr<StreamFrontEnd> Create(const FrontEndConfig& config, Status* status);

  // Parses, decodes and resamples one message into the ring; updates VAD and events.
  Status Push(const uint8_t* data, size_t n);
  // FORMAT command: flushes the old format's resampler tail and resets its parser state.
  Status SetFormat(AudioFormat format);
  // End of input (END): emits the resampler tail and closes an open turn.
  Status Flush();
  // CLEAR: drops buffered audio and any turn in progress; positions continue.
  void Clear();

  RingBuffer& ring() { return ring_; }
  const RingBuffer& ring() const { return ring_; }
  EventQueue& events() { return events_; }
  const FrontEndCounters& counters() const { return counters_; }
  AudioFormat format() const { return format_; }
  const EnergyVad* vad() const { return vad_.get(); }
  const Endpointer* endpointer() const { return endpointer_.get(); }
  // Set when the last Push() reported a WAV or WebM header problem.
  const WavParser* wav() const { return wav_.get(); }
  const WebmDemuxer* webm() const { return webm_.get(); }

 private:
  explicit StreamFrontEnd(const FrontEndConfig& config);
  Status Prepare(AudioFormat format);
  void BeginCall();
  Status EndCall(Status s);
  void DrainFormat();

  // 16 kHz output: into the ring, then VAD over what was stored.
  void Emit(const float* x, size_t n);
  void EmitPcm16Bytes(const uint8_t* bytes, size_t n);
  // Counts `stored` of n samples written to the ring (a short write means it is full); returns
  // stored.
  size_t CountStored(size_t stored, size_t n);
  void RunVad(const float* x, size_t n);
  // Resamples n samples through r (in blocks) and emits the output.
  void ResampleAndEmit(Resampler* r, const float* x, size_t n);
  size_t DrainResampler(Resampler* r);

  Status PushPcm16(const uint8_t* data, size_t n);
  Status PushPcm48(const uint8_t* data, size_t n);
  Status PushRawOpus(const uint8_t* data, size_t n);
  // One byte a sample: expanded straight into the 8 kHz resampler's input block.
  Status PushG711(G711Law law, const uint8_t* data, size_t n);
  // Decodes one Opus packet into decoded_, counting it as decoded or rejected.
  Status DecodePacket(OpusFrameDecoder* dec, const uint8_t* data, size_t n, size_t* samples);

  // WebmFrameSink / WavSampleSink
  Status OnAudioTrack(const WebmAudioTrack& track) override;
  Status OnFrame(const uint8_t* data, size_t len, uint64_t discard_ns) override;
  Status OnFormat(const WavFormat& format) override;
  Status OnSamples(const float* mono, size_t n) override;

  FrontEndConfig config_;
  AudioFormat format_;
  RingBuffer ring_;
  EventQueue events_;
  FrontEndCounters counters_;
  std::unique_ptr<EnergyVad> vad_;
  std::unique_ptr<Endpointer> endpointer_;

  // Created for the formats that need them (Create/SetFormat; WAV rate on its fmt chunk).
  std::unique_ptr<Resampler> resampler48_;
  std::unique_ptr<Resampler> wav_resampler_;
  std::unique_ptr<Resampler> resampler8_;  // mulaw_8k, alaw_8k
  std::unique_ptr<OpusFrameDecoder> opus16_;
  std::unique_ptr<OpusFrameDecoder> opus48_;
  std::unique_ptr<WebmDemuxer> webm_;
  std::unique_ptr<WavParser> wav_;

  uint8_t carry_byte_ = 0;  // half of a 16-bit sample split across messages
  bool has_carry_ = false;
  size_t pre_skip_left_ = 0;  // WebM OpusHead pre-skip, at the decode rate
  bool buffer_full_ = false;  // set by Emit when samples were dropped in this call

  std::vector<float> decoded_;    // one Opus packet (120 ms at 48 kHz max)
  std::vector<float> resampled_;  // resampler output for one input block
  std::vector<float> probs_;      // VAD probabilities for one emit block
};

}  // namespace gw
