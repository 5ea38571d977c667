#include "firmware/RingOrder.h"

#include <algorithm>
#include <stdexcept>

namespace wsc::firmware {

RingOrder::RingOrder(Kind kind, uint32_t p) : kind_(kind), p_(p), pos_(p), phys_(p) {
    if (p == 0) throw std::invalid_argument("ring of zero cores");
    for (uint32_t i = 0; i < p; ++i) {
        pos_[i] = kind == Kind::Linear ? i : (i % 2 == 0 ? i / 2 : p - (i + 1) / 2);
        phys_[pos_[i]] = i;
    }
}

uint32_t RingOrder::maxHop() const {
    uint32_t m = 0;
    for (uint32_t i = 0; i < p_; ++i) {
        const uint32_t j = next(i);
        m = std::max(m, i > j ? i - j : j - i);
    }
    return m;
}

void RingOrder::interleave(uint32_t index, uint32_t n, uint32_t& send_index, uint32_t& recv_index) {
    const int64_t i = index, N = n;
    int64_t s, r;
    if (i % 2 == 0) {
        r = std::max<int64_t>(i - 2, 0);
        s = std::min<int64_t>(i + 2, N - 1);
    } else {
        r = std::min<int64_t>(i + 2, N - 1);
        s = std::max<int64_t>(i - 2, 0);
    }
    if (i == 0) r = 1;
    if (i == N - 1) {
        if (N % 2 == 0)
            r = N - 2;
        else
            s = N - 2;
    }
    send_index = static_cast<uint32_t>(s), recv_index = static_cast<uint32_t>(r);
}

}  // namespace wsc::firmware
