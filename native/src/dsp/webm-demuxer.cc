// Over 500 lines as one state machine: the incremental EBML parser, its element tables and blocks.
#include "dsp/webm-demuxer.h"

#include <algorithm>
#include <cstring>

namespace gw {

namespace {

// Element IDs (with their length marker bits, as Matroska writes them).
constexpr uint32_t kEbml = 0x1A45DFA3;
constexpr uint32_t kDocType = 0x4282;
constexpr uint32_t kSegment = 0x18538067;
constexpr uint32_t kSeekHead = 0x114D9B74;
constexpr uint32_t kInfo = 0x1549A966;
constexpr uint32_t kTracks = 0x1654AE6B;
constexpr uint32_t kTrackEntry = 0xAE;
constexpr uint32_t kTrackNumber = 0xD7;
constexpr uint32_t kTrackType = 0x83;
constexpr uint32_t kCodecId = 0x86;
constexpr uint32_t kCodecPrivate = 0x63A2;
constexpr uint32_t kCodecDelay = 0x56AA;
constexpr uint32_t kAudio = 0xE1;
constexpr uint32_t kSamplingFrequency = 0xB5;
constexpr uint32_t kChannels = 0x9F;
constexpr uint32_t kCluster = 0x1F43B675;
constexpr uint32_t kTimecode = 0xE7;
constexpr uint32_t kSilentTracks = 0x5854;
constexpr uint32_t kPosition = 0xA7;
constexpr uint32_t kPrevSize = 0xAB;
constexpr uint32_t kSimpleBlock = 0xA3;
constexpr uint32_t kBlockGroup = 0xA0;
constexpr uint32_t kBlock = 0xA1;
constexpr uint32_t kEncryptedBlock = 0xAF;
constexpr uint32_t kDiscardPadding = 0x75A2;
constexpr uint32_t kCues = 0x1C53BB6B;
constexpr uint32_t kAttachments = 0x1941A469;
constexpr uint32_t kChapters = 0x1043A770;
constexpr uint32_t kTags = 0x1254C367;
constexpr uint32_t kVoid = 0xEC;
constexpr uint32_t kCrc32 = 0xBF;

constexpr uint64_t kTrackTypeAudio = 2;
constexpr size_t kMaxStringLeaf = 64;
constexpr size_t kMaxCodecPrivate = 1024;

// Whether `id` may appear directly inside an unknown-size `parent`; any other ID ends it.
bool IsChildOfUnknown(uint32_t parent, uint32_t id) {
  if (id == kVoid || id == kCrc32) return true;
  switch (parent) {
    case kSegment:
      return id == kSeekHead || id == kInfo || id == kTracks || id == kCluster || id == kCues ||
             id == kAttachments || id == kChapters || id == kTags;
    case kCluster:
      return id == kTimecode || id == kSilentTracks || id == kPosition || id == kPrevSize ||
             id == kSimpleBlock || id == kBlockGroup || id == kEncryptedBlock;
    default:
      return true;
  }
}

// Leaf elements whose payload the demuxer reads, with the size it accepts.
bool IsReadLeaf(uint32_t parent, uint32_t id, size_t* max_size) {
  switch (parent) {
    case kEbml:
      if (id == kDocType) return *max_size = kMaxStringLeaf, true;
      return false;
    case kTrackEntry:
      if (id == kTrackNumber || id == kTrackType || id == kCodecDelay) return *max_size = 8, true;
      if (id == kCodecId) return *max_size = kMaxStringLeaf, true;
      if (id == kCodecPrivate) return *max_size = kMaxCodecPrivate, true;
      return false;
    case kAudio:
      if (id == kSamplingFrequency) return *max_size = 8, true;
      if (id == kChannels) return *max_size = 8, true;
      return false;
    case kBlockGroup:
      if (id == kDiscardPadding) return *max_size = 8, true;
      return false;
    default:
      return false;
  }
}

bool IsMaster(uint32_t parent, uint32_t id) {
  switch (parent) {
    case 0:
      return id == kEbml || id == kSegment;
    case kSegment:
      return id == kTracks || id == kCluster;
    case kTracks:
      return id == kTrackEntry;
    case kTrackEntry:
      return id == kAudio;
    case kCluster:
      return id == kBlockGroup;
    default:
      return false;
  }
}

bool IsBlock(uint32_t parent, uint32_t id) {
  return (parent == kCluster && id == kSimpleBlock) || (parent == kBlockGroup && id == kBlock);
}

uint64_t ReadUint(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

// Length of a VINT from its first byte (1..8), or 0 when invalid.
int VintLength(uint8_t first) {
  if (first == 0) return 0;
  return __builtin_clz(static_cast<unsigned>(first)) - 23;
}

// Reads a VINT at p (n bytes available); returns its length or 0 when incomplete/invalid.
int ReadVint(const uint8_t* p, size_t n, uint64_t* value) {
  if (n == 0) return 0;
  const int len = VintLength(p[0]);
  if (len == 0 || static_cast<size_t>(len) > n) return 0;
  uint64_t v = p[0] & (0xFFu >> len);
  for (int i = 1; i < len; ++i) v = (v << 8) | p[i];
  *value = v;
  return len;
}

}  // namespace

WebmDemuxer::WebmDemuxer(size_t max_block_bytes)
    : block_buffer_(std::max<size_t>(max_block_bytes, kMaxCodecPrivate)),
      held_block_(block_buffer_.size()) {}

void WebmDemuxer::Reset() {
  state_ = State::kId;
  failure_ = Status::kOk;
  pos_ = 0;
  depth_ = 0;
  id_len_ = id_read_ = 0;
  seen_ebml_ = false;
  doc_type_ok_ = true;
  audio_ = WebmAudioTrack{};
  entry_ = WebmAudioTrack{};
  frames_ = 0;
  has_held_ = false;
  held_len_ = 0;
  discard_ns_ = 0;
}

Status WebmDemuxer::Fail(Status s) {
  failure_ = s;
  return s;
}

void WebmDemuxer::Emit(WebmFrameSink* sink, const uint8_t* p, size_t n, uint64_t discard_ns,
                       Status* sink_status) {
  ++frames_;
  const Status s = sink->OnFrame(p, n, discard_ns);
  if (s != Status::kOk && *sink_status == Status::kOk) *sink_status = s;
}

Status WebmDemuxer::EndMaster(const Level& level, WebmFrameSink* sink, Status* sink_status) {
  if (level.id == kEbml) {
    if (!doc_type_ok_) return Fail(Status::kWebmNotWebm);
  } else if (level.id == kTrackEntry) {
    if (entry_type_ != kTrackTypeAudio || audio_.number != 0) return Status::kOk;
    if (entry_.number == 0) return Fail(Status::kWebmInvalid);
    if (!entry_has_codec_ || !entry_is_opus_) return Fail(Status::kWebmUnsupportedCodec);
    if (entry_.channels > 2) return Fail(Status::kWebmUnsupportedChannels);
    audio_ = entry_;
    const Status s = sink->OnAudioTrack(audio_);
    if (s != Status::kOk && *sink_status == Status::kOk) *sink_status = s;
  } else if (level.id == kBlockGroup && has_held_) {
    has_held_ = false;
    const Status s = ParseBlock(held_block_.data(), held_len_, discard_ns_, sink, sink_status);
    if (s != Status::kOk) return Fail(s);
  }
  return Status::kOk;
}

// Pops every level that ends at or before `at` (known sizes), innermost last.
void WebmDemuxer::PopFinished(uint64_t at, WebmFrameSink* sink, Status* sink_status) {
  for (int i = 0; i < depth_; ++i) {
    if (at >= stack_[i].end) {
      while (depth_ > i) {
        --depth_;
        const Status s = EndMaster(stack_[depth_], sink, sink_status);
        if (s != Status::kOk) return;
      }
      return;
    }
  }
}

Status WebmDemuxer::OnLeaf(uint32_t id, const uint8_t* p, size_t n) {
  switch (id) {
    case kDocType: {
      // Strings may be zero-padded.
      size_t len = n;
      while (len > 0 && p[len - 1] == 0) --len;
      doc_type_ok_ = (len == 4 && std::memcmp(p, "webm", 4) == 0) ||
                     (len == 8 && std::memcmp(p, "matroska", 8) == 0);
      return Status::kOk;
    }
    case kTrackNumber:
      entry_.number = ReadUint(p, n);
      return Status::kOk;
    case kTrackType:
      entry_type_ = ReadUint(p, n);
      return Status::kOk;
    case kCodecDelay:
      entry_.codec_delay_ns = ReadUint(p, n);
      return Status::kOk;
    case kCodecId: {
      size_t len = n;
      while (len > 0 && p[len - 1] == 0) --len;
      entry_has_codec_ = true;
      entry_is_opus_ = len == 6 && std::memcmp(p, "A_OPUS", 6) == 0;
      return Status::kOk;
    }
    case kCodecPrivate:
      // OpusHead: magic(8) version(1) channels(1) pre_skip(2 LE) rate(4 LE) gain(2 LE) family(1)
      if (n >= 19 && std::memcmp(p, "OpusHead", 8) == 0) {
        if ((p[8] & 0xF0) != 0) return Status::kWebmUnsupportedCodec;  // major version
        entry_.channels = p[9];
        entry_.pre_skip = p[10] | (p[11] << 8);
        entry_.output_gain_q8 = static_cast<int16_t>(static_cast<uint16_t>(p[16] | (p[17] << 8)));
        entry_.has_opus_head = true;
        const int family = p[18];
        if (family != 0) {
          // Mapping table: stream count, coupled count, channel map. One stream decodes
          // with a plain Opus decoder; more needs the multistream API.
          if (n < 21u + static_cast<size_t>(entry_.channels)) return Status::kWebmInvalid;
          if (p[19] != 1) entry_.channels = 255;
        }
      }
      return Status::kOk;
    case kSamplingFrequency:
      if (n == 4) {
        uint32_t bits = static_cast<uint32_t>(ReadUint(p, 4));
        float f;
        std::memcpy(&f, &bits, 4);
        entry_.sampling_frequency = f;
      } else if (n == 8) {
        uint64_t bits = ReadUint(p, 8);
        double d;
        std::memcpy(&d, &bits, 8);
        entry_.sampling_frequency = d;
      } else if (n != 0) {
        return Status::kWebmInvalid;
      }
      return Status::kOk;
    case kDiscardPadding: {
      // A signed integer (ns); only padding at the end (positive) is meaningful.
      if (n == 0) return Status::kOk;
      int64_t v = (p[0] & 0x80) ? -1 : 0;
      for (size_t i = 0; i < n; ++i) v = static_cast<int64_t>(static_cast<uint64_t>(v) << 8) | p[i];
      discard_ns_ = v > 0 ? static_cast<uint64_t>(v) : 0;
      return Status::kOk;
    }
    case kChannels:
      if (!entry_.has_opus_head) {
        const uint64_t c = ReadUint(p, n);
        entry_.channels = c > 255 ? 255 : static_cast<int>(c);
      }
      return Status::kOk;
    default:
      return Status::kOk;
  }
}

Status WebmDemuxer::ParseBlock(const uint8_t* p, size_t n, uint64_t discard_ns, WebmFrameSink* sink,
                               Status* sink_status) {
  // p: timecode (2), flags (1), then frames; the track number was read already.
  if (n < 3) return Status::kWebmInvalid;
  const int lacing = (p[2] >> 1) & 3;
  const uint8_t* data = p + 3;
  size_t len = n - 3;
  if (lacing == 0) {
    Emit(sink, data, len, discard_ns, sink_status);
    return Status::kOk;
  }
  if (len < 1) return Status::kWebmInvalidLacing;
  const size_t count = static_cast<size_t>(data[0]) + 1;
  size_t at = 1;
  uint64_t total = 0;
  if (lacing == 1) {  // Xiph: sizes as runs of 255-valued bytes
    for (size_t k = 0; k + 1 < count; ++k) {
      uint64_t size = 0;
      uint8_t b;
      do {
        if (at >= len) return Status::kWebmInvalidLacing;
        b = data[at++];
        size += b;
      } while (b == 255);
      lace_sizes_[k] = static_cast<uint32_t>(std::min<uint64_t>(size, UINT32_MAX));
      total += size;
    }
  } else if (lacing == 3) {  // EBML: first size, then signed differences
    int64_t previous = 0;
    for (size_t k = 0; k + 1 < count; ++k) {
      uint64_t raw = 0;
      const int vlen = ReadVint(data + at, len - at, &raw);
      if (vlen == 0) return Status::kWebmInvalidLacing;
      at += static_cast<size_t>(vlen);
      int64_t size;
      if (k == 0) {
        size = static_cast<int64_t>(raw);
      } else {
        const int64_t bias = (int64_t{1} << (7 * vlen - 1)) - 1;
        size = previous + (static_cast<int64_t>(raw) - bias);
      }
      if (size < 0 || size > static_cast<int64_t>(len)) return Status::kWebmInvalidLacing;
      lace_sizes_[k] = static_cast<uint32_t>(size);
      previous = size;
      total += static_cast<uint64_t>(size);
    }
  } else {  // fixed: equal sizes
    const size_t body = len - at;
    if (body % count != 0) return Status::kWebmInvalidLacing;
    for (size_t k = 0; k + 1 < count; ++k) lace_sizes_[k] = static_cast<uint32_t>(body / count);
    total = body / count * (count - 1);
  }
  if (at > len || total > len - at) return Status::kWebmInvalidLacing;
  lace_sizes_[count - 1] = static_cast<uint32_t>(len - at - total);
  for (size_t k = 0; k < count; ++k) {
    Emit(sink, data + at, lace_sizes_[k], k + 1 == count ? discard_ns : 0, sink_status);
    at += lace_sizes_[k];
  }
  return Status::kOk;
}

Status WebmDemuxer::Finish(WebmFrameSink* sink, const uint8_t* p, size_t n, Status* sink_status) {
  if (collect_kind_ == Collect::kBlockBody) {
    if (parent_id() == kBlockGroup) {
      // Held until the group ends (its DiscardPadding may follow the Block).
      std::memcpy(held_block_.data(), p, n);
      held_len_ = n;
      has_held_ = true;
      return Status::kOk;
    }
    const Status s = ParseBlock(p, n, 0, sink, sink_status);
    return s == Status::kOk ? s : Fail(s);
  }
  const Status s = OnLeaf(collect_id_, p, n);
  return s == Status::kOk ? s : Fail(s);
}

// Called with a complete element header (id_, size_, size_unknown_); pos_ is at its payload.
Status WebmDemuxer::OnHeader(WebmFrameSink* sink) {
  // Unknown-size masters end at the first ID that cannot be their child.
  Status sink_status = Status::kOk;
  while (depth_ > 0 && stack_[depth_ - 1].unknown &&
         !IsChildOfUnknown(stack_[depth_ - 1].id, id_)) {
    --depth_;
    const Status s = EndMaster(stack_[depth_], sink, &sink_status);
    if (s != Status::kOk) return s;
  }
  if (failure_ != Status::kOk) return failure_;

  const uint32_t parent = parent_id();
  if (depth_ == 0) {
    if (id_ == kEbml) {
      // A new stream: forget the previous one's tracks.
      seen_ebml_ = true;
      doc_type_ok_ = true;
      audio_ = WebmAudioTrack{};
    } else if (!seen_ebml_) {
      return Fail(Status::kWebmNotWebm);
    }
  }
  if (size_unknown_ && !(id_ == kSegment || id_ == kCluster)) {
    return Fail(Status::kWebmUnknownSizeElement);
  }
  // A child may not run past its parent; an unknown-size child ends with its parent.
  const uint64_t parent_end = depth_ == 0 ? kUnknownEnd : stack_[depth_ - 1].end;
  const uint64_t end = size_unknown_ ? parent_end : pos_ + size_;
  if (size_ > kUnknownEnd - pos_ || end > parent_end) return Fail(Status::kWebmInvalid);

  if (IsMaster(parent, id_)) {
    if (depth_ >= kMaxDepth) return Fail(Status::kWebmInvalid);
    stack_[depth_++] = Level{id_, end, size_unknown_};
    if (id_ == kBlockGroup) {
      has_held_ = false;
      discard_ns_ = 0;
    }
    if (id_ == kTrackEntry) {
      entry_ = WebmAudioTrack{};
      entry_type_ = 0;
      entry_is_opus_ = false;
      entry_has_codec_ = false;
    }
    state_ = State::kId;
    return sink_status;
  }
  if (IsBlock(parent, id_)) {
    if (audio_.number == 0) return Fail(Status::kWebmNoAudioTrack);
    if (size_ < 4) return Fail(Status::kWebmInvalid);
    block_left_ = size_;
    block_track_ = 0;
    track_len_ = track_read_ = 0;
    state_ = State::kBlockTrack;
    return sink_status;
  }
  size_t max_size = 0;
  if (IsReadLeaf(parent, id_, &max_size)) {
    if (size_ > max_size) return Fail(Status::kWebmInvalid);
    collect_kind_ = Collect::kLeaf;
    collect_id_ = id_;
    collect_need_ = static_cast<size_t>(size_);
    collect_have_ = 0;
    state_ = State::kCollect;
    return sink_status;
  }
  skip_left_ = size_;
  state_ = State::kSkip;
  return sink_status;
}

template <typename T>
bool WebmDemuxer::TakeFieldBytes(const uint8_t* data, size_t n, size_t* i, T* value, int* read,
                                 int len) {
  while (*i < n && *read < len) {
    *value = static_cast<T>((*value << 8) | data[(*i)++]);
    ++*read;
    ++pos_;
  }
  return *read == len;
}

Status WebmDemuxer::Push(const uint8_t* data, size_t n, WebmFrameSink* sink) {
  if (failure_ != Status::kOk) return failure_;
  Status sink_status = Status::kOk;
  size_t i = 0;
  while (i < n) {
    switch (state_) {
      case State::kId: {
        if (id_read_ == 0) {
          PopFinished(pos_, sink, &sink_status);
          if (failure_ != Status::kOk) return failure_;
          const uint8_t first = data[i];
          id_len_ = VintLength(first);
          if (id_len_ == 0 || id_len_ > 4) return Fail(Status::kWebmInvalid);
          id_ = 0;
        }
        if (TakeFieldBytes(data, n, &i, &id_, &id_read_, id_len_)) {
          id_read_ = 0;
          size_read_ = 0;
          state_ = State::kSize;
        }
        break;
      }
      case State::kSize: {
        if (size_read_ == 0) {
          size_len_ = VintLength(data[i]);
          if (size_len_ == 0) return Fail(Status::kWebmInvalid);
          size_ = data[i] & (0xFFu >> size_len_);
          ++i;
          ++pos_;
          size_read_ = 1;
        }
        if (TakeFieldBytes(data, n, &i, &size_, &size_read_, size_len_)) {
          size_read_ = 0;
          size_unknown_ = size_ == (uint64_t{1} << (7 * size_len_)) - 1;
          const Status s = OnHeader(sink);
          if (failure_ != Status::kOk) return failure_;
          if (s != Status::kOk && sink_status == Status::kOk) sink_status = s;
        }
        break;
      }
      case State::kSkip: {
        const size_t take = static_cast<size_t>(std::min<uint64_t>(skip_left_, n - i));
        i += take;
        pos_ += take;
        skip_left_ -= take;
        if (skip_left_ == 0) state_ = State::kId;
        break;
      }
      case State::kBlockTrack: {
        if (track_read_ == 0) {
          track_len_ = VintLength(data[i]);
          if (track_len_ == 0 || static_cast<uint64_t>(track_len_) + 3 > block_left_) {
            return Fail(Status::kWebmInvalid);
          }
          block_track_ = data[i] & (0xFFu >> track_len_);
          ++i;
          ++pos_;
          track_read_ = 1;
        }
        while (i < n && track_read_ < track_len_) {
          block_track_ = (block_track_ << 8) | data[i++];
          ++track_read_;
          ++pos_;
        }
        if (track_read_ < track_len_) break;
        track_read_ = 0;
        block_left_ -= static_cast<uint64_t>(track_len_);
        if (block_track_ != audio_.number) {
          skip_left_ = block_left_;
          state_ = State::kSkip;
        } else if (block_left_ > block_buffer_.size()) {
          // Not decodable here; skip it and say so, the stream stays usable.
          if (sink_status == Status::kOk) sink_status = Status::kWebmBlockTooLarge;
          skip_left_ = block_left_;
          state_ = State::kSkip;
        } else {
          collect_kind_ = Collect::kBlockBody;
          collect_need_ = static_cast<size_t>(block_left_);
          collect_have_ = 0;
          state_ = State::kCollect;
        }
        break;
      }
      case State::kCollect: {
        const size_t avail = n - i;
        if (collect_have_ == 0 && avail >= collect_need_) {
          // Whole payload inside this input: parse in place, no copy.
          const Status s = Finish(sink, data + i, collect_need_, &sink_status);
          i += collect_need_;
          pos_ += collect_need_;
          if (s != Status::kOk) return s;
          state_ = State::kId;
          break;
        }
        const size_t take = std::min(avail, collect_need_ - collect_have_);
        std::memcpy(block_buffer_.data() + collect_have_, data + i, take);
        collect_have_ += take;
        i += take;
        pos_ += take;
        if (collect_have_ == collect_need_) {
          const Status s = Finish(sink, block_buffer_.data(), collect_need_, &sink_status);
          if (s != Status::kOk) return s;
          state_ = State::kId;
        }
        break;
      }
    }
  }
  // Close known-size masters that ended exactly at the end of this input (e.g. Tracks),
  // so the audio track is known without waiting for the next byte.
  if (state_ == State::kId && id_read_ == 0) {
    PopFinished(pos_, sink, &sink_status);
    if (failure_ != Status::kOk) return failure_;
  }
  return sink_status;
}

}  // namespace gw
