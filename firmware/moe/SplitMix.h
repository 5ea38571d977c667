#pragma once
// A counter-based random stream (SplitMix64, Steele et al. 2014): seeded from a key such as
// (seed, iteration, layer, token), so any token's draw is computed on its own, the same on every
// platform and in any order. The standard library's distributions are implementation-defined, so
// draws are made here from raw 64-bit words.
#include <cstdint>
#include <initializer_list>

namespace wsc::firmware::moe {

class SplitMix {
  public:
    explicit SplitMix(std::initializer_list<uint64_t> key);
    uint64_t next();
    double uniform();            // [0, 1), 53 bits
    uint32_t below(uint32_t n);  // [0, n), n >= 1 (Lemire's multiply, bias < 2^-32 n)

  private:
    uint64_t state_;
};

}  // namespace wsc::firmware::moe
