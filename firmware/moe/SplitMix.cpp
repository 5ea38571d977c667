#include "firmware/moe/SplitMix.h"

namespace wsc::firmware::moe {

namespace {
uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
}  // namespace

SplitMix::SplitMix(std::initializer_list<uint64_t> key) : state_(0x9e3779b97f4a7c15ULL) {
    // Fold each key word through the mixer so (1, 2) and (2, 1) give different streams.
    for (uint64_t k : key) state_ = mix(state_ ^ mix(k + 0x9e3779b97f4a7c15ULL));
}

uint64_t SplitMix::next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return mix(state_);
}

double SplitMix::uniform() {
    return double(next() >> 11) * (1.0 / 9007199254740992.0);
}

uint32_t SplitMix::below(uint32_t n) {
    return uint32_t(((next() >> 32) * uint64_t(n)) >> 32);
}

}  // namespace wsc::firmware::moe
