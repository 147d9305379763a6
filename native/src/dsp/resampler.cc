#include "dsp/resampler.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <tuple>

#include "dsp/fir-design.h"

namespace gw {

namespace {

bool Reduce(int in_rate, int out_rate, int* up, int* down) {
  if (in_rate < Resampler::kMinRate || in_rate > Resampler::kMaxRate) return false;
  if (out_rate < Resampler::kMinRate || out_rate > Resampler::kMaxRate) return false;
  const int g = std::gcd(in_rate, out_rate);
  *up = out_rate / g;
  *down = in_rate / g;
  return *up <= Resampler::kMaxUp;
}

std::shared_ptr<const PolyphaseBank> Design(int in_rate, int out_rate, int up, int down,
                                            const ResamplerQuality& q) {
  auto bank = std::make_shared<PolyphaseBank>();
  bank->in_rate = in_rate;
  bank->out_rate = out_rate;
  bank->up = up;
  bank->down = down;
  const double min_rate = std::min(in_rate, out_rate);
  const double pass = q.pass_fraction * min_rate;
  const double stop = q.stop_fraction * min_rate;
  const double proto_rate = static_cast<double>(in_rate) * up;
  const int estimate = KaiserLength(q.attenuation_db, (stop - pass) / proto_rate);
  int taps = (estimate + up - 1) / up;
  taps = (taps + 7) / 8 * 8;
  // An odd length has an integer group delay, so outputs land exactly on input times; the
  // bank's last slot (taps * up) is then a zero.
  const int slots = taps * up;
  const int length = slots % 2 == 0 ? slots - 1 : slots;
  const std::vector<double> h =
      DesignLowpass(length, (pass + stop) / 2.0 / proto_rate, KaiserBeta(q.attenuation_db), up);
  bank->taps = taps;
  bank->delay = (length - 1) / 2;
  bank->coeffs.resize(static_cast<size_t>(slots));
  for (int p = 0; p < up; ++p) {
    for (int j = 0; j < taps; ++j) {
      const int n = p + (taps - 1 - j) * up;
      bank->coeffs[static_cast<size_t>(p) * taps + j] =
          n < length ? static_cast<float>(h[static_cast<size_t>(n)]) : 0.0f;
    }
  }
  return bank;
}

}  // namespace

bool Resampler::Supports(int in_rate, int out_rate) {
  int up = 0, down = 0;
  return Reduce(in_rate, out_rate, &up, &down);
}

std::shared_ptr<const PolyphaseBank> Resampler::Bank(int in_rate, int out_rate,
                                                     const ResamplerQuality& quality) {
  int up = 0, down = 0;
  if (!Reduce(in_rate, out_rate, &up, &down)) return nullptr;
  // Banks are designed once per (rates, quality) and shared; create-time only.
  using Key = std::tuple<int, int, double, double, double>;
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const PolyphaseBank>> cache;
  const Key key{in_rate, out_rate, quality.pass_fraction, quality.stop_fraction,
                quality.attenuation_db};
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  auto bank = Design(in_rate, out_rate, up, down, quality);
  cache.emplace(key, bank);
  return bank;
}

std::unique_ptr<Resampler> Resampler::Create(int in_rate, int out_rate,
                                             const ResamplerQuality& quality) {
  if (!(quality.pass_fraction > 0.0 && quality.pass_fraction < quality.stop_fraction &&
        quality.stop_fraction <= 1.0 && quality.attenuation_db >= 20.0 &&
        quality.attenuation_db <= 160.0)) {
    return nullptr;
  }
  auto bank = Bank(in_rate, out_rate, quality);
  if (!bank) return nullptr;
  return std::unique_ptr<Resampler>(new Resampler(std::move(bank)));
}

Resampler::Resampler(std::shared_ptr<const PolyphaseBank> bank)
    : bank_(std::move(bank)),
      dot_(SelectedDot()),
      dot2_(SelectedDot2()),
      history_(static_cast<size_t>(bank_->taps - 1)),
      buffer_(history_ + kBlock, 0.0f) {
  Reset();
}

void Resampler::Reset() {
  std::fill(buffer_.begin(), buffer_.end(), 0.0f);
  t_ = static_cast<uint64_t>(bank_->delay);
  inputs_seen_ = 0;
  outputs_made_ = 0;
}

size_t Resampler::latency_input() const {
  return static_cast<size_t>(bank_->delay / bank_->up + 1);
}

size_t Resampler::MaxOutput(size_t n) const {
  const uint64_t up = static_cast<uint64_t>(bank_->up);
  const uint64_t down = static_cast<uint64_t>(bank_->down);
  return static_cast<size_t>((n * up + down - 1) / down + 1);
}

size_t Resampler::ProcessSlot(size_t n, float* out) {
  const PolyphaseBank& b = *bank_;
  const uint64_t up = static_cast<uint64_t>(b.up);
  const uint64_t down = static_cast<uint64_t>(b.down);
  const size_t taps = static_cast<size_t>(b.taps);
  const float* coeffs = b.coeffs.data();
  const float* window = buffer_.data();
  const uint64_t limit = n * up;
  size_t count = 0;
  if (up == 1) {
    // Integer decimation: one phase, the window advances by `down` per output. Pairs of
    // outputs share each coefficient load.
    for (; t_ + down < limit; t_ += 2 * down) {
      dot2_(coeffs, window + t_, window + t_ + down, taps, out + count);
      count += 2;
    }
    for (; t_ < limit; t_ += down) out[count++] = dot_(coeffs, window + t_, taps);
  } else {
    uint64_t i = t_ / up;
    uint64_t p = t_ % up;
    const uint64_t step_i = down / up;
    const uint64_t step_p = down % up;
    while (t_ < limit) {
      out[count++] = dot_(coeffs + p * taps, window + i, taps);
      t_ += down;
      i += step_i;
      p += step_p;
      if (p >= up) {
        p -= up;
        ++i;
      }
    }
  }
  t_ -= limit;
  std::memmove(buffer_.data(), buffer_.data() + n, history_ * sizeof(float));
  inputs_seen_ += n;
  outputs_made_ += count;
  return count;
}

size_t Resampler::Process(const float* in, size_t n, float* out) {
  size_t produced = 0;
  while (n > 0) {
    const size_t block = std::min(n, kBlock);
    std::memcpy(InputSlot(), in, block * sizeof(float));
    produced += ProcessSlot(block, out + produced);
    in += block;
    n -= block;
  }
  return produced;
}

size_t Resampler::Flush(float* out) {
  // Outputs m with m * in_rate / out_rate < inputs seen are owed.
  const uint64_t up = static_cast<uint64_t>(bank_->up);
  const uint64_t down = static_cast<uint64_t>(bank_->down);
  const uint64_t expected = (inputs_seen_ * up + down - 1) / down;
  size_t owed = static_cast<size_t>(expected - std::min(expected, outputs_made_));
  size_t written = 0;
  // Feed zeros in blocks that yield at most two outputs each until the owed ones are out.
  const size_t zeros = std::max<uint64_t>(1, down / up);
  float scratch[4];
  while (owed > 0) {
    std::fill(InputSlot(), InputSlot() + zeros, 0.0f);
    const size_t take = std::min(ProcessSlot(zeros, scratch), owed);
    std::memcpy(out + written, scratch, take * sizeof(float));
    written += take;
    owed -= take;
  }
  Reset();
  return written;
}

}  // namespace gw
