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

namespace {

std::vector<std::string> sortedKeys(const nlohmann::json& j, const std::string& first) {
    std::vector<std::string> keys;
    keys.reserve(j.size());
    for (const auto& [k, v] : j.items()) keys.push_back(k);
    std::sort(keys.begin(), keys.end(), [&](const std::string& a, const std::string& b) {
        if (!first.empty() && (a == first) != (b == first)) return a == first;
        return NaturalKeyOrder::less(a, b);
    });
    return keys;
}

// dump(2)'s layout: a non-empty container opens, puts each member on a line of its own indented
// two more than the container, and closes on a line at the container's indent.
void writeIndented(std::ostream& os, const nlohmann::json& j, const std::string& first,
                   size_t indent) {
    const bool object = j.is_object();
    if ((!object && !j.is_array()) || j.empty()) {
        os << j.dump();
        return;
    }
    const std::string in(indent + 2, ' ');
    os << (object ? "{\n" : "[\n");
    bool more = false;
    if (object) {
        for (const auto& k : sortedKeys(j, first)) {
            os << (more ? ",\n" : "") << in << nlohmann::json(k).dump() << ": ";
            writeIndented(os, j.at(k), "", indent + 2);
            more = true;
        }
    } else {
        for (const auto& v : j) {
            os << (more ? ",\n" : "") << in;
            writeIndented(os, v, "", indent + 2);
            more = true;
        }
    }
    os << "\n" << std::string(indent, ' ') << (object ? '}' : ']');
}

}  // namespace

void NaturalKeyOrder::write(std::ostream& os, const nlohmann::json& j, const std::string& first) {
    writeIndented(os, j, first, 0);
}

nlohmann::ordered_json NaturalKeyOrder::sorted(const nlohmann::json& j, const std::string& first) {
    if (j.is_array()) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& v : j) out.push_back(sorted(v));
        return out;
    }
    if (!j.is_object()) return nlohmann::ordered_json(j);
    const std::vector<std::string> keys = sortedKeys(j, first);
    // Appended straight to the ordered map's vector: its operator[] searches linearly, which
    // made a 256x256 mesh's stats (a key per router, NI and link) take over ten minutes.
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    auto& obj = out.get_ref<nlohmann::ordered_json::object_t&>();
    obj.reserve(keys.size());
    for (const auto& k : keys) obj.Container::emplace_back(k, sorted(j.at(k)));
    return out;
}

}  // namespace wsc::tb
