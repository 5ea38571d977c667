#include "core/DmaEngine.h"

#include <algorithm>
#include <cstring>

namespace wsc::core {

uint32_t DmaEngine::start(uint32_t core, uint32_t op, uint16_t buf, uint64_t addr, uint64_t bytes,
                          bool write, const float* src, CoreEnvironment& env) {
    ++outstanding_;
    uint32_t chunks = 0;
    for (uint64_t off = 0; off < bytes; off += p_.burst_bytes, ++chunks) {
        MemoryRequest r;
        r.core = core;
        r.op = op;
        r.buf = buf;
        r.buf_offset = off;
        r.addr = addr + off;
        r.bytes = static_cast<uint32_t>(std::min<uint64_t>(p_.burst_bytes, bytes - off));
        r.write = write;
        if (src) {
            r.data.resize(r.bytes);
            if (write)
                std::memcpy(r.data.data(), reinterpret_cast<const uint8_t*>(src) + off, r.bytes);
        }
        env.memoryRequest(std::move(r));
    }
    return chunks;
}

}  // namespace wsc::core
