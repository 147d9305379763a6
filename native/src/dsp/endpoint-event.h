// Speech start/end events and the fixed-capacity queue that holds them until read.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gw {

enum class EventType : int32_t { kSpeechStart = 1, kSpeechEnd = 2 };

enum EventFlags : int32_t {
  kFlagNone = 0,
  kFlagForcedSplit = 1,  // max speech duration reached: end and immediate restart
  kFlagEndOfStream = 2,  // emitted by Flush()
};

struct EndpointEvent {
  EventType type;
  int32_t flags;
  uint64_t position;    // absolute sample position (16 kHz) of the start or end, padding included
  uint64_t turn_start;  // for kSpeechEnd: the matching start position
};

// Single-producer queue with a capacity fixed at construction; when full, new events are
// counted in dropped() and discarded (the oldest stay, so every delivered end has its start).
class EventQueue {
 public:
  static constexpr size_t kCapacity = 512;

  bool Push(const EndpointEvent& e) {
    if (count_ == kCapacity) {
      ++dropped_;
      return false;
    }
    events_[(head_ + count_) % kCapacity] = e;
    ++count_;
    return true;
  }
  size_t Pop(EndpointEvent* out, size_t cap) {
    size_t n = 0;
    while (n < cap && count_ > 0) {
      out[n++] = events_[head_];
      head_ = (head_ + 1) % kCapacity;
      --count_;
    }
    return n;
  }
  void Clear() { head_ = count_ = 0; }
  size_t size() const { return count_; }
  uint64_t dropped() const { return dropped_; }

 private:
  EndpointEvent events_[kCapacity];
  size_t head_ = 0;
  size_t count_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace gw
