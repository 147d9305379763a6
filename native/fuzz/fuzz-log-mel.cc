// libFuzzer target: RealPowerSpectrum and LogMel on fuzzer-chosen sizes and samples.
// Properties: Create refuses exactly the sizes with a prime factor above 13 (or a bad config);
// the power spectrum keeps Parseval's energy; frames are never NaN for finite input and never
// below log(log_floor); the same input gives bit-identical frames twice (no state carried over).
// Input: 6 header bytes (n_fft, hop, centring and power, mel channels, a bad-range flag), then
// 16-bit samples. The seeds in native/fuzz/corpus/log-mel are such headers over a tone.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dsp/log-mel.h"
#include "dsp/real-fft.h"

namespace {

bool SmallPrimesOnly(size_t n) {
  for (size_t p : {2, 3, 5, 7, 11, 13}) {
    while (n % p == 0) n /= p;
  }
  return n == 1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 6) return 0;
  const size_t n_fft = 2 + (data[0] | (data[1] << 8)) % 1023;
  const size_t hop = 1 + data[2] % 256;
  const bool center = (data[3] & 1) != 0;
  const int power = 1 + ((data[3] >> 1) & 1);
  const size_t mels = 1 + data[4] % 40;
  const uint8_t shape = data[5];
  data += 6;
  size -= 6;
  std::vector<float> pcm(size / 2);
  for (size_t i = 0; i < pcm.size(); ++i) {
    pcm[i] =
        static_cast<float>(static_cast<int16_t>(data[2 * i] | (data[2 * i + 1] << 8))) / 32768.0f;
  }

  const size_t points = n_fft % 2 == 0 ? n_fft / 2 : n_fft;
  auto fft = gw::RealPowerSpectrum::Create(n_fft);
  if ((fft != nullptr) != (points == 1 || SmallPrimesOnly(points))) std::abort();
  if (!fft) return 0;

  // Parseval on the first n_fft samples (zero-padded): sum |X_k|^2 over all k = n * sum x^2.
  std::vector<double> frame(n_fft, 0), spectrum(fft->bins());
  double energy = 0;
  for (size_t i = 0; i < n_fft && i < pcm.size(); ++i) {
    frame[i] = pcm[i];
    energy += frame[i] * frame[i];
  }
  fft->Power(frame.data(), spectrum.data());
  double total = spectrum[0];
  for (size_t k = 1; k < fft->bins(); ++k)
    total += (n_fft % 2 == 0 && k == n_fft / 2) ? spectrum[k] : 2 * spectrum[k];
  if (std::fabs(total - static_cast<double>(n_fft) * energy) >
      1e-9 * (1 + total) * static_cast<double>(n_fft))
    std::abort();

  gw::LogMelConfig config;
  config.n_fft = n_fft;
  config.hop = hop;
  config.power = power;
  config.log_floor = 1e-10;
  config.window.assign(n_fft, 1.0);
  const size_t bins = n_fft / 2 + 1;
  config.bank.assign(mels * bins, 0.0);
  for (size_t m = 0; m < mels; ++m) {
    const auto from = static_cast<int32_t>((m * bins) / mels);
    // shape bit 0: one range runs one bin past the end (must be refused)
    const auto to = static_cast<int32_t>(std::min(bins, ((m + 1) * bins) / mels + 1) +
                                         ((shape & 1) && m == 0 ? bins : 0));
    config.bank_from.push_back(from);
    config.bank_to.push_back(to);
    for (int32_t k = from; k < to && static_cast<size_t>(k) < bins; ++k)
      config.bank[m * bins + k] = 1.0 / (1 + k - from);
  }
  const bool valid = (shape & 1) == 0;
  auto mel = gw::LogMel::Create(config);
  if ((mel != nullptr) != valid) std::abort();
  if (!mel) return 0;
  const size_t frames = mel->FrameCount(pcm.size(), center);
  const size_t want =
      center ? 1 + pcm.size() / hop : (pcm.size() >= n_fft ? 1 + (pcm.size() - n_fft) / hop : 1);
  if (frames != want) std::abort();
  std::vector<float> a(frames * mels), b(frames * mels);
  mel->Compute(pcm.data(), pcm.size(), center, a.data());
  mel->Compute(pcm.data(), pcm.size(), center, b.data());
  if (!a.empty() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) != 0) std::abort();
  const float floor_log = static_cast<float>(std::log(1e-10));
  for (float v : a) {
    if (std::isnan(v) || v < floor_log) std::abort();
  }
  return 0;
}
