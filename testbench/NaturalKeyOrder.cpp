#include "testbench/NaturalKeyOrder.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace wsc::tb {

bool NaturalKeyOrder::less(const std::string& a, const std::string& b) {
    size_t i = 0, j = 0;
    auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    while (i < a.size() && j < b.size()) {
        if (digit(a[i]) && digit(b[j])) {
            size_t ie = i, je = j;
            while (ie < a.size() && digit(a[ie])) ++ie;
            while (je < b.size() && digit(b[je])) ++je;
            // Compare the runs as numbers: skip leading zeros, then length, then digits.
            size_t iz = i, jz = j;
            while (iz + 1 < ie && a[iz] == '0') ++iz;
            while (jz + 1 < je && b[jz] == '0') ++jz;
            if (ie - iz != je - jz) return ie - iz < je - jz;
            const int c = a.compare(iz, ie - iz, b, jz, je - jz);
            if (c != 0) return c < 0;
            if (ie - i != je - j) return ie - i < je - j;  // same value: fewer leading zeros first
            i = ie, j = je;
            continue;
        }
        if (a[i] != b[j])
            return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
        ++i, ++j;
    }
    return a.size() - i < b.size() - j;
}

nlohmann::ordered_json NaturalKeyOrder::sorted(const nlohmann::json& j, const std::string& first) {
    if (j.is_array()) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& v : j) out.push_back(sorted(v));
        return out;
    }
    if (!j.is_object()) return nlohmann::ordered_json(j);
    std::vector<std::string> keys;
    for (const auto& [k, v] : j.items()) keys.push_back(k);
    std::sort(keys.begin(), keys.end(), [&](const std::string& a, const std::string& b) {
        if (!first.empty() && (a == first) != (b == first)) return a == first;
        return less(a, b);
    });
    // Appended straight to the ordered map's vector: its operator[] searches linearly, which
    // made a 256x256 mesh's stats (a key per router, NI and link) take over ten minutes.
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    auto& obj = out.get_ref<nlohmann::ordered_json::object_t&>();
    obj.reserve(keys.size());
    for (const auto& k : keys) obj.Container::emplace_back(k, sorted(j.at(k)));
    return out;
}

}  // namespace wsc::tb
