// Kaiser-windowed sinc low-pass design (used to build the resampler's polyphase bank).
#pragma once

#include <vector>

namespace gw {

// Zeroth-order modified Bessel function of the first kind (power series).
double BesselI0(double x);

// Kaiser's beta for a stopband attenuation in dB.
double KaiserBeta(double attenuation_db);

// Kaiser's estimate of the length needed for an attenuation and a transition width given
// in cycles per sample.
int KaiserLength(double attenuation_db, double transition_cycles);

// Low-pass of `length` taps with its -6 dB point at `cutoff_cycles` (cycles per sample,
// 0 < cutoff < 0.5), windowed with Kaiser(beta), scaled to DC gain `gain`.
std::vector<double> DesignLowpass(int length, double cutoff_cycles, double beta, double gain);

}  // namespace gw
