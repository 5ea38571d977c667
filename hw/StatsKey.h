#pragma once
// A display name ("noc links", "attn.qkv fwd", "tp all-reduce") as a stats key: lower case,
// every run of other characters one underscore ("noc_links", "attn_qkv_fwd", "tp_all_reduce"),
// so every key of a --stats file is one snake_case path segment a sweep's `metrics:` path can
// name (a dot or a space inside a key could not be addressed). docs/STATS.md.
#include <string>

namespace wsc::hw {

inline std::string statsKey(const std::string& name) {
    std::string out;
    bool gap = false;
    for (char c : name) {
        const bool word =
            (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
        if (!word) {
            gap = !out.empty();
            continue;
        }
        if (gap) out += '_', gap = false;
        out += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
    }
    return out;
}

}  // namespace wsc::hw
