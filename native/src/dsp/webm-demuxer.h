// Streaming WebM/Matroska demuxer for the Opus audio that browsers' MediaRecorder sends:
// an EBML header, a Segment of unknown size, Tracks, then Clusters of unknown size holding
// SimpleBlocks (or BlockGroups). Input may be split at any byte; Push() keeps the state.
//
// Rules:
// - Only Segment and Cluster may have an unknown size; such an element ends where an ID
//   appears that cannot be its child (the next Cluster, Cues, a new EBML header, ...).
// - The first audio track is used; blocks of other tracks (video) are skipped unread.
// - Xiph, fixed-size and EBML lacing are supported.
// - A new EBML header after a Segment starts a new stream (a client that restarted its
//   recorder on the same socket); the sink receives OnAudioTrack again.
// - A Block inside a BlockGroup is held until the group ends, so that the group's
//   DiscardPadding (the encoder's padding at the end of a file's last packet) reaches the sink
//   with the block's last frame; SimpleBlocks (what MediaRecorder streams) go out at once.
// - Structural errors are sticky: once Push() returns one, later calls return it again
//   until Reset(). Errors from the sink (a bad Opus packet, a full buffer) are not.
//
// Buffers: frame pointers handed to the sink point into the caller's input when a whole
// block lies inside one Push() call, otherwise into the demuxer's block buffer (allocated
// once, `max_block_bytes`); either way they are valid only during the sink call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "dsp/status.h"

namespace gw {

struct WebmAudioTrack {
  uint64_t number = 0;
  int channels = 0;                 // from OpusHead, else from the Audio element
  double sampling_frequency = 0.0;  // as declared (Opus is always decoded at 48 kHz)
  int pre_skip = 0;                 // samples at 48 kHz to drop at the start (OpusHead)
  int output_gain_q8 = 0;           // Q7.8 dB (OpusHead)
  bool has_opus_head = false;
  uint64_t codec_delay_ns = 0;
};

class WebmFrameSink {
 public:
  virtual ~WebmFrameSink() = default;
  virtual Status OnAudioTrack(const WebmAudioTrack& track) = 0;
  // One Opus packet, valid only during the call. `discard_ns`: how much of the end of its decoded
  // audio is padding to drop (a BlockGroup's DiscardPadding, on the group's last frame); else 0.
  virtual Status OnFrame(const uint8_t* data, size_t len, uint64_t discard_ns) = 0;
};

class WebmDemuxer {
 public:
  static constexpr size_t kDefaultMaxBlockBytes = 16384;

  explicit WebmDemuxer(size_t max_block_bytes = kDefaultMaxBlockBytes);

  // Parses n bytes, calling the sink for each track and frame. Returns kOk, the first
  // error the sink returned, or a (sticky) structural error.
  Status Push(const uint8_t* data, size_t n, WebmFrameSink* sink);
  void Reset();

  bool has_audio_track() const { return audio_.number != 0; }
  const WebmAudioTrack& audio_track() const { return audio_; }
  uint64_t frames() const { return frames_; }
  uint64_t bytes() const { return pos_; }

 private:
  enum class State { kId, kSize, kCollect, kSkip, kBlockTrack };
  enum class Collect { kLeaf, kBlockBody };
  struct Level {
    uint32_t id;
    uint64_t end;  // the element's end, or its nearest known ancestor's, or kUnknownEnd
    bool unknown;  // size unknown: also ends at the first ID that is not its child
  };
  static constexpr uint64_t kUnknownEnd = ~uint64_t{0};
  static constexpr int kMaxDepth = 8;

  Status Fail(Status s);
  Status OnHeader(WebmFrameSink* sink);
  void PopFinished(uint64_t at, WebmFrameSink* sink, Status* sink_status);
  Status EndMaster(const Level& level, WebmFrameSink* sink, Status* sink_status);
  Status OnLeaf(uint32_t id, const uint8_t* p, size_t n);
  Status ParseBlock(const uint8_t* p, size_t n, uint64_t discard_ns, WebmFrameSink* sink,
                    Status* sink_status);
  void Emit(WebmFrameSink* sink, const uint8_t* p, size_t n, uint64_t discard_ns,
            Status* sink_status);
  Status Finish(WebmFrameSink* sink, const uint8_t* p, size_t n, Status* sink_status);
  // Shifts the next bytes of a big-endian ID or size into *value until `len` are read (true)
  // or the chunk ends (false: the field continues in the next push).
  template <typename T>
  bool TakeFieldBytes(const uint8_t* data, size_t n, size_t* i, T* value, int* read, int len);
  uint32_t parent_id() const { return depth_ == 0 ? 0 : stack_[depth_ - 1].id; }

  std::vector<uint8_t> block_buffer_;
  // The Block of the BlockGroup being read (same capacity as block_buffer_), emitted when the
  // group ends with the group's DiscardPadding.
  std::vector<uint8_t> held_block_;
  size_t held_len_ = 0;
  bool has_held_ = false;
  uint64_t discard_ns_ = 0;
  State state_ = State::kId;
  Status failure_ = Status::kOk;
  uint64_t pos_ = 0;  // bytes consumed since Reset()
  Level stack_[kMaxDepth];
  int depth_ = 0;

  // Header being read.
  uint32_t id_ = 0;
  int id_len_ = 0, id_read_ = 0;
  uint64_t size_ = 0;
  int size_len_ = 0, size_read_ = 0;
  bool size_unknown_ = false;

  // Payload being collected or skipped.
  Collect collect_kind_ = Collect::kLeaf;
  uint32_t collect_id_ = 0;
  size_t collect_need_ = 0, collect_have_ = 0;
  uint64_t skip_left_ = 0;
  uint64_t block_left_ = 0;  // block bytes after the track number
  uint64_t block_track_ = 0;
  int track_len_ = 0, track_read_ = 0;

  // Stream state.
  bool seen_ebml_ = false;
  bool doc_type_ok_ = true;  // Matroska's default DocType is "matroska"
  WebmAudioTrack audio_;
  WebmAudioTrack entry_;  // TrackEntry being read
  uint64_t entry_type_ = 0;
  bool entry_is_opus_ = false;
  bool entry_has_codec_ = false;
  uint64_t frames_ = 0;
  uint32_t lace_sizes_[256];
};

}  // namespace gw
