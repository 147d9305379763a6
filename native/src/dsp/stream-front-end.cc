#include "dsp/stream-front-end.h"

#include <algorithm>
#include <cstring>

#include "dsp/sample-convert.h"

namespace gw {

namespace {
// VAD runs over at most this many samples per call, which bounds probs_.
constexpr size_t kVadChunk = 4096;
// Largest block handed to Emit() by a resampler: MaxOutput(kBlock) for the largest
// upsampling ratio WAV allows (8 kHz -> 16 kHz is 2x).
constexpr size_t kResampledCapacity = 2 * Resampler::kBlock + 16;
}  // namespace

bool IsAudioFormat(int32_t value) { return value >= 0 && value <= 6; }

Status StreamFrontEnd::Validate(const FrontEndConfig& c) {
  if (!IsAudioFormat(static_cast<int32_t>(c.format))) return Status::kInvalidArgument;
  if (c.max_buffer_samples < 1 || c.max_buffer_samples > (size_t{1} << 31)) {
    return Status::kInvalidArgument;
  }
  if (c.initial_buffer_samples < 1) return Status::kInvalidArgument;
  if (c.webm_decode_rate != 16000 && c.webm_decode_rate != 48000) return Status::kInvalidArgument;
  if (c.energy_vad) {
    if (c.vad.sample_rate != kOutputRate || c.endpointer.sample_rate != kOutputRate ||
        c.endpointer.hop_samples != c.vad.frame_samples) {
      return Status::kInvalidArgument;
    }
    if (EnergyVad::Validate(c.vad) != Status::kOk) return Status::kInvalidArgument;
    if (Endpointer::Validate(c.endpointer) != Status::kOk) return Status::kInvalidArgument;
  }
  if (!Resampler::Create(48000, kOutputRate, c.quality)) return Status::kInvalidArgument;
  if (!Resampler::Create(8000, kOutputRate, c.quality)) return Status::kInvalidArgument;
  return Status::kOk;
}

std::unique_ptr<StreamFrontEnd> StreamFrontEnd::Create(const FrontEndConfig& config,
                                                       Status* status) {
  *status = Validate(config);
  if (*status != Status::kOk) return nullptr;
  std::unique_ptr<StreamFrontEnd> fe(new StreamFrontEnd(config));
  *status = fe->Prepare(config.format);
  if (*status != Status::kOk) return nullptr;
  return fe;
}

StreamFrontEnd::StreamFrontEnd(const FrontEndConfig& config)
    : config_(config),
      format_(config.format),
      ring_(config.initial_buffer_samples, config.max_buffer_samples),
      decoded_(OpusFrameDecoder::kMaxFrameSamples48k),
      resampled_(kResampledCapacity),
      probs_(kVadChunk / 16 + 2) {
  if (config.energy_vad) {
    vad_ = std::make_unique<EnergyVad>(config.vad);
    endpointer_ = std::make_unique<Endpointer>(config.endpointer);
  }
}

// Creates what `format` needs (once) and resets its per-stream parsing state.
Status StreamFrontEnd::Prepare(AudioFormat format) {
  has_carry_ = false;
  switch (format) {
    case AudioFormat::kPcmS16le:
      break;
    case AudioFormat::kPcmS16le48k:
      if (!resampler48_) resampler48_ = Resampler::Create(48000, kOutputRate, config_.quality);
      resampler48_->Reset();
      break;
    case AudioFormat::kWav:
      if (!wav_) wav_ = std::make_unique<WavParser>();
      wav_->Reset();
      wav_resampler_.reset();
      break;
    case AudioFormat::kWebmOpus:
      if (!webm_) webm_ = std::make_unique<WebmDemuxer>();
      webm_->Reset();
      if (config_.webm_decode_rate == 48000) {
        if (!opus48_) opus48_ = OpusFrameDecoder::Create(48000);
        if (!resampler48_) resampler48_ = Resampler::Create(48000, kOutputRate, config_.quality);
        if (!opus48_ || !resampler48_) return Status::kInvalidArgument;
        opus48_->Reset();
        resampler48_->Reset();
      } else {
        if (!opus16_) opus16_ = OpusFrameDecoder::Create(kOutputRate);
        if (!opus16_) return Status::kInvalidArgument;
        opus16_->Reset();
      }
      pre_skip_left_ = 0;
      break;
    case AudioFormat::kOpusRaw16k:
      if (!opus16_) opus16_ = OpusFrameDecoder::Create(kOutputRate);
      if (!opus16_) return Status::kInvalidArgument;
      opus16_->Reset();
      break;
    case AudioFormat::kMulaw8k:
    case AudioFormat::kAlaw8k:
      if (!resampler8_) resampler8_ = Resampler::Create(8000, kOutputRate, config_.quality);
      if (!resampler8_) return Status::kInvalidArgument;
      resampler8_->Reset();
      break;
  }
  format_ = format;
  return Status::kOk;
}

void StreamFrontEnd::RunVad(const float* x, size_t n) {
  if (!vad_) return;
  while (n > 0) {
    const size_t take = std::min(n, kVadChunk);
    const size_t frames = vad_->Process(x, take, probs_.data());
    for (size_t f = 0; f < frames; ++f) endpointer_->Push(probs_[f], &events_);
    x += take;
    n -= take;
  }
}

size_t StreamFrontEnd::CountStored(size_t stored, size_t n) {
  counters_.appended_last += stored;
  if (stored < n) {
    counters_.dropped_last += n - stored;
    buffer_full_ = true;
  }
  return stored;
}

void StreamFrontEnd::Emit(const float* x, size_t n) {
  RunVad(x, CountStored(ring_.WriteFloat(x, n), n));
}

void StreamFrontEnd::EmitPcm16Bytes(const uint8_t* bytes, size_t n) {
  const size_t stored = CountStored(ring_.WritePcm16Bytes(bytes, n), n);
  if (!vad_) return;
  for (size_t done = 0; done < stored;) {
    const size_t take = std::min(stored - done, kVadChunk);
    const size_t frames = vad_->ProcessPcm16Bytes(bytes + 2 * done, take, probs_.data());
    for (size_t f = 0; f < frames; ++f) endpointer_->Push(probs_[f], &events_);
    done += take;
  }
}

void StreamFrontEnd::ResampleAndEmit(Resampler* r, const float* x, size_t n) {
  while (n > 0) {
    const size_t take = std::min(n, Resampler::kBlock);
    std::memcpy(r->InputSlot(), x, take * sizeof(float));
    Emit(resampled_.data(), r->ProcessSlot(take, resampled_.data()));
    x += take;
    n -= take;
  }
}

size_t StreamFrontEnd::DrainResampler(Resampler* r) {
  if (r == nullptr) return 0;
  const size_t n = r->Flush(resampled_.data());
  Emit(resampled_.data(), n);
  return n;
}

Status StreamFrontEnd::PushPcm16(const uint8_t* data, size_t n) {
  if (has_carry_ && n > 0) {
    const uint8_t pair[2] = {carry_byte_, data[0]};
    EmitPcm16Bytes(pair, 1);
    has_carry_ = false;
    ++data;
    --n;
  }
  EmitPcm16Bytes(data, n / 2);
  if (n % 2 != 0) {
    carry_byte_ = data[n - 1];
    has_carry_ = true;
  }
  return Status::kOk;
}

Status StreamFrontEnd::PushPcm48(const uint8_t* data, size_t n) {
  Resampler* r = resampler48_.get();
  if (has_carry_ && n > 0) {
    const uint8_t pair[2] = {carry_byte_, data[0]};
    Pcm16BytesToFloat(pair, r->InputSlot(), 1);
    Emit(resampled_.data(), r->ProcessSlot(1, resampled_.data()));
    has_carry_ = false;
    ++data;
    --n;
  }
  size_t samples = n / 2;
  // Convert straight into the resampler's input block: no intermediate buffer.
  while (samples > 0) {
    const size_t take = std::min(samples, Resampler::kBlock);
    Pcm16BytesToFloat(data, r->InputSlot(), take);
    Emit(resampled_.data(), r->ProcessSlot(take, resampled_.data()));
    data += 2 * take;
    samples -= take;
  }
  if (n % 2 != 0) {
    carry_byte_ = data[0];
    has_carry_ = true;
  }
  return Status::kOk;
}

Status StreamFrontEnd::PushG711(G711Law law, const uint8_t* data, size_t n) {
  Resampler* r = resampler8_.get();
  while (n > 0) {
    const size_t take = std::min(n, Resampler::kBlock);
    G711ToFloat(law, data, r->InputSlot(), take);
    Emit(resampled_.data(), r->ProcessSlot(take, resampled_.data()));
    data += take;
    n -= take;
  }
  return Status::kOk;
}

Status StreamFrontEnd::PushRawOpus(const uint8_t* data, size_t n) {
  if (n == 0) return Status::kOpusEmptyPacket;
  if (opus16_->PacketSamples(data, n) != kRawOpusFrameSamples) {
    ++counters_.packets_rejected;
    return Status::kOpusFrameDuration;
  }
  size_t samples = 0;
  const Status s = DecodePacket(opus16_.get(), data, n, &samples);
  if (s != Status::kOk) return s;
  Emit(decoded_.data(), samples);
  return Status::kOk;
}

Status StreamFrontEnd::DecodePacket(OpusFrameDecoder* dec, const uint8_t* data, size_t n,
                                    size_t* samples) {
  const Status s = dec->Decode(data, n, decoded_.data(), samples);
  if (s != Status::kOk) {
    ++counters_.packets_rejected;
    return s;
  }
  ++counters_.packets_decoded;
  return Status::kOk;
}

Status StreamFrontEnd::OnAudioTrack(const WebmAudioTrack& track) {
  OpusFrameDecoder* dec = config_.webm_decode_rate == 48000 ? opus48_.get() : opus16_.get();
  dec->Reset();
  dec->SetGainQ8(track.output_gain_q8);
  if (resampler48_ && config_.webm_decode_rate == 48000) resampler48_->Reset();
  pre_skip_left_ =
      static_cast<size_t>(track.pre_skip) * static_cast<size_t>(dec->sample_rate()) / 48000u;
  return Status::kOk;
}

Status StreamFrontEnd::OnFrame(const uint8_t* data, size_t len, uint64_t discard_ns) {
  const bool at48 = config_.webm_decode_rate == 48000;
  OpusFrameDecoder* dec = at48 ? opus48_.get() : opus16_.get();
  size_t samples = 0;
  const Status s = DecodePacket(dec, data, len, &samples);
  if (s != Status::kOk) return s;
  const float* out = decoded_.data();
  const size_t skip = std::min(pre_skip_left_, samples);
  pre_skip_left_ -= skip;
  out += skip;
  samples -= skip;
  // End padding of the last packet (DiscardPadding), rounded to the nearest sample.
  const uint64_t padding =
      (std::min<uint64_t>(discard_ns, 1000000000u) * static_cast<uint64_t>(dec->sample_rate()) +
       500000000u) /
      1000000000u;
  samples -= static_cast<size_t>(std::min<uint64_t>(padding, samples));
  if (at48) {
    ResampleAndEmit(resampler48_.get(), out, samples);
  } else {
    Emit(out, samples);
  }
  return Status::kOk;
}

Status StreamFrontEnd::OnFormat(const WavFormat& format) {
  // A new file (or a new fmt chunk): start its resampler afresh.
  if (format.sample_rate == kOutputRate) {
    wav_resampler_.reset();
    return Status::kOk;
  }
  if (wav_resampler_ && wav_resampler_->bank().in_rate == format.sample_rate) {
    wav_resampler_->Reset();
    return Status::kOk;
  }
  wav_resampler_ = Resampler::Create(format.sample_rate, kOutputRate, config_.quality);
  return wav_resampler_ ? Status::kOk : Status::kWavUnsupportedSampleRate;
}

Status StreamFrontEnd::OnSamples(const float* mono, size_t n) {
  if (wav_resampler_) {
    ResampleAndEmit(wav_resampler_.get(), mono, n);
  } else {
    Emit(mono, n);
  }
  return Status::kOk;
}

Status StreamFrontEnd::Push(const uint8_t* data, size_t n) {
  BeginCall();
  counters_.bytes_in += n;
  Status s = Status::kOk;
  switch (format_) {
    case AudioFormat::kPcmS16le:
      s = PushPcm16(data, n);
      break;
    case AudioFormat::kPcmS16le48k:
      s = PushPcm48(data, n);
      break;
    case AudioFormat::kWav:
      s = wav_->Push(data, n, this);
      break;
    case AudioFormat::kWebmOpus:
      s = webm_->Push(data, n, this);
      break;
    case AudioFormat::kOpusRaw16k:
      s = PushRawOpus(data, n);
      break;
    case AudioFormat::kMulaw8k:
      s = PushG711(G711Law::kMulaw, data, n);
      break;
    case AudioFormat::kAlaw8k:
      s = PushG711(G711Law::kAlaw, data, n);
      break;
  }
  return EndCall(s);
}

Status StreamFrontEnd::SetFormat(AudioFormat format) {
  if (!IsAudioFormat(static_cast<int32_t>(format))) return Status::kInvalidArgument;
  BeginCall();
  DrainFormat();
  const Status prepared = Prepare(format);
  const Status ended = EndCall(Status::kOk);
  return prepared != Status::kOk ? prepared : ended;
}

Status StreamFrontEnd::Flush() {
  BeginCall();
  DrainFormat();
  if (endpointer_) endpointer_->Flush(&events_);
  return EndCall(Status::kOk);
}

void StreamFrontEnd::BeginCall() {
  counters_.appended_last = 0;
  counters_.dropped_last = 0;
  buffer_full_ = false;
}

Status StreamFrontEnd::EndCall(Status s) {
  counters_.dropped_total += counters_.dropped_last;
  // A full buffer outranks per-packet errors: the server must close the connection.
  return buffer_full_ ? Status::kBufferFull : s;
}

// Emits what the current format's resampler still holds and forgets a split sample.
void StreamFrontEnd::DrainFormat() {
  switch (format_) {
    case AudioFormat::kPcmS16le48k:
      DrainResampler(resampler48_.get());
      break;
    case AudioFormat::kWav:
      DrainResampler(wav_resampler_.get());
      break;
    case AudioFormat::kWebmOpus:
      if (config_.webm_decode_rate == 48000) DrainResampler(resampler48_.get());
      break;
    case AudioFormat::kMulaw8k:
    case AudioFormat::kAlaw8k:
      DrainResampler(resampler8_.get());
      break;
    default:
      break;
  }
  has_carry_ = false;
}

void StreamFrontEnd::Clear() {
  ring_.Clear();
  events_.Clear();
  if (vad_) vad_->DropPartialFrame();
  if (endpointer_) endpointer_->ResetAt(ring_.write_pos());
}

}  // namespace gw
