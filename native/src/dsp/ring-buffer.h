// Per-stream ring buffer of 16 kHz mono audio stored as int16.
//
// Positions are absolute sample indices since the stream began (uint64), so events such
// as "speech started at sample 48000" stay valid while the buffer wraps. The buffer holds
// [read_pos, write_pos).
//
// Memory: storage starts at `initial_capacity` samples and doubles, only when a write does
// not fit, up to the hard `max_capacity`; a consumer that keeps up never causes an
// allocation after create. A write never exceeds max_capacity: it stores what fits and
// reports the rest as dropped, and samples already stored are never overwritten.
// Int16 storage means the spec's 50 MB WebSocket buffer is max_capacity = 25,000,000.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gw {

class RingBuffer {
 public:
  RingBuffer(size_t initial_capacity, size_t max_capacity);

  // Appends up to n samples; returns how many were stored (fewer only at max capacity).
  size_t Write(const int16_t* src, size_t n);
  // Appends n little-endian 16-bit samples from bytes of any alignment.
  size_t WritePcm16Bytes(const uint8_t* src, size_t n);
  // Appends float samples in [-1, 1), converted to int16 with rounding and saturation.
  size_t WriteFloat(const float* src, size_t n);

  // Copies up to n samples from the read position into dst and consumes them.
  size_t Read(int16_t* dst, size_t n);
  size_t ReadFloat(float* dst, size_t n);  // scaled to [-1, 1)

  // Copies up to n samples starting at absolute position pos (clamped to read_pos) without
  // consuming; returns the count copied. *first receives the position actually copied from.
  size_t Peek(uint64_t pos, int16_t* dst, size_t n, uint64_t* first) const;
  size_t PeekFloat(uint64_t pos, float* dst, size_t n, uint64_t* first) const;

  // Consumes samples up to absolute position pos (clamped to [read_pos, write_pos]).
  size_t DiscardUntil(uint64_t pos);
  // Drops everything buffered and shrinks storage back to the initial capacity.
  void Clear();

  size_t size() const { return static_cast<size_t>(write_pos_ - read_pos_); }
  uint64_t read_pos() const { return read_pos_; }
  uint64_t write_pos() const { return write_pos_; }
  size_t capacity() const { return storage_.size(); }
  size_t max_capacity() const { return max_capacity_; }
  size_t free_space() const { return max_capacity_ - size(); }
  uint64_t grow_count() const { return grow_count_; }

 private:
  // Makes room for n more samples (growing storage if needed); returns how many fit.
  size_t Reserve(size_t n);
  size_t Index(uint64_t pos) const { return static_cast<size_t>(pos % storage_.size()); }
  // Stores up to n samples at write_pos_ (after Reserve), one contiguous run at a time:
  // convert(done, dst, run) fills dst with input samples [done, done + run).
  template <typename Convert>
  size_t CopyIn(size_t n, Convert convert);
  template <typename T, typename Convert>
  size_t CopyOut(uint64_t pos, T* dst, size_t n, Convert convert) const;

  std::vector<int16_t> storage_;
  size_t initial_capacity_;
  size_t max_capacity_;
  uint64_t read_pos_ = 0;
  uint64_t write_pos_ = 0;
  uint64_t grow_count_ = 0;
};

}  // namespace gw
