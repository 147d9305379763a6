#include "dsp/ring-buffer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "dsp/sample-convert.h"

namespace gw {

RingBuffer::RingBuffer(size_t initial_capacity, size_t max_capacity)
    : initial_capacity_(std::max<size_t>(1, std::min(initial_capacity, max_capacity))),
      max_capacity_(std::max<size_t>(1, max_capacity)) {
  storage_.assign(initial_capacity_, 0);
}

size_t RingBuffer::Reserve(size_t n) {
  const size_t fit = std::min(n, free_space());
  const size_t needed = size() + fit;
  if (needed <= storage_.size()) return fit;

  // Grow by doubling (bounded by max_capacity) and lay the live samples out again so
  // that Index() under the new size finds them.
  size_t new_capacity = storage_.size();
  while (new_capacity < needed) new_capacity = std::min(max_capacity_, new_capacity * 2);
  std::vector<int16_t> grown(new_capacity);
  for (uint64_t pos = read_pos_; pos < write_pos_;) {
    const size_t from = Index(pos);
    const size_t to = static_cast<size_t>(pos % new_capacity);
    const size_t run = static_cast<size_t>(
        std::min<uint64_t>({write_pos_ - pos, storage_.size() - from, new_capacity - to}));
    std::memcpy(grown.data() + to, storage_.data() + from, run * sizeof(int16_t));
    pos += run;
  }
  storage_.swap(grown);
  ++grow_count_;
  return fit;
}

template <typename Convert>
size_t RingBuffer::CopyIn(size_t n, Convert convert) {
  const size_t count = Reserve(n);
  size_t done = 0;
  while (done < count) {
    const size_t at = Index(write_pos_);
    const size_t run = std::min(count - done, storage_.size() - at);
    convert(done, storage_.data() + at, run);
    done += run;
    write_pos_ += run;
  }
  return count;
}

size_t RingBuffer::Write(const int16_t* src, size_t n) {
  return CopyIn(n, [src](size_t done, int16_t* dst, size_t run) {
    std::memcpy(dst, src + done, run * sizeof(int16_t));
  });
}

size_t RingBuffer::WritePcm16Bytes(const uint8_t* src, size_t n) {
  return CopyIn(n, [src](size_t done, int16_t* dst, size_t run) {
    std::memcpy(dst, src + 2 * done, run * sizeof(int16_t));
  });
}

size_t RingBuffer::WriteFloat(const float* src, size_t n) {
  return CopyIn(
      n, [src](size_t done, int16_t* dst, size_t run) { FloatToInt16(src + done, dst, run); });
}

template <typename T, typename Convert>
size_t RingBuffer::CopyOut(uint64_t pos, T* dst, size_t n, Convert convert) const {
  const size_t count = static_cast<size_t>(std::min<uint64_t>(n, write_pos_ - pos));
  size_t done = 0;
  while (done < count) {
    const size_t at = Index(pos + done);
    const size_t run = std::min(count - done, storage_.size() - at);
    convert(storage_.data() + at, dst + done, run);
    done += run;
  }
  return count;
}

namespace {
void CopyInt16(const int16_t* src, int16_t* dst, size_t n) {
  std::memcpy(dst, src, n * sizeof(int16_t));
}
}  // namespace

size_t RingBuffer::Read(int16_t* dst, size_t n) {
  const size_t count = CopyOut(read_pos_, dst, n, CopyInt16);
  read_pos_ += count;
  return count;
}

size_t RingBuffer::ReadFloat(float* dst, size_t n) {
  const size_t count = CopyOut(read_pos_, dst, n, Int16ToFloat);
  read_pos_ += count;
  return count;
}

size_t RingBuffer::Peek(uint64_t pos, int16_t* dst, size_t n, uint64_t* first) const {
  pos = std::clamp(pos, read_pos_, write_pos_);
  if (first != nullptr) *first = pos;
  return CopyOut(pos, dst, n, CopyInt16);
}

size_t RingBuffer::PeekFloat(uint64_t pos, float* dst, size_t n, uint64_t* first) const {
  pos = std::clamp(pos, read_pos_, write_pos_);
  if (first != nullptr) *first = pos;
  return CopyOut(pos, dst, n, Int16ToFloat);
}

size_t RingBuffer::DiscardUntil(uint64_t pos) {
  pos = std::clamp(pos, read_pos_, write_pos_);
  const size_t count = static_cast<size_t>(pos - read_pos_);
  read_pos_ = pos;
  return count;
}

void RingBuffer::Clear() {
  read_pos_ = write_pos_;
  if (storage_.size() != initial_capacity_) {
    std::vector<int16_t>(initial_capacity_).swap(storage_);
  }
}

}  // namespace gw
