#include "testbench/CommPhaseSplit.h"

#include <algorithm>
#include <set>

namespace wsc::tb {

double CommPhaseSplit::Phase::busiest() const {
    double m = 0;
    for (const auto& l : links) m = std::max(m, l.utilization);
    return m;
}

std::vector<size_t> CommPhaseSplit::Phase::hot() const {
    std::vector<size_t> out;
    const double m = busiest();
    for (size_t i = 0; i < links.size(); ++i)
        if (m > 0 && links[i].utilization >= 0.5 * m) out.push_back(i);
    return out;
}

std::vector<size_t> CommPhaseSplit::Phase::cold() const {
    std::vector<size_t> out;
    const double m = busiest();
    for (size_t i = 0; i < links.size(); ++i)
        if (links[i].utilization < 0.1 * m || m == 0) out.push_back(i);
    return out;
}

std::vector<CommPhaseSplit::Phase> CommPhaseSplit::split(
    const std::vector<LinkTimeline::Window>& windows, const std::vector<hw::LinkUse>& links,
    const std::vector<Span>& spans, const std::vector<std::string>& background) {
    auto isBackground = [&](const std::string& k) {
        for (const auto& b : background)
            if (k.rfind(b, 0) == 0) return true;
        return false;
    };
    std::vector<Span> fg;
    std::set<uint32_t> dies;
    for (const Span& s : spans) {
        dies.insert(s.die);
        if (!isBackground(s.kind) && s.end > s.begin) fg.push_back(s);
    }
    std::sort(fg.begin(), fg.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
    // Windows and spans both in time order: a sweep from the first span that may still reach
    // the window (every span before it has ended: a running maximum of the ends).
    std::vector<uint64_t> ended(fg.size());
    for (size_t i = 0; i < fg.size(); ++i)
        ended[i] = std::max(fg[i].end, i ? ended[i - 1] : uint64_t{0});
    std::map<std::string, std::pair<uint64_t, std::vector<uint64_t>>> acc;  // cycles, busy
    size_t first = 0;
    for (const auto& w : windows) {
        const uint64_t len = w.end - w.begin;
        // Per (die, kind) at most the window: a die running one kind on two streams at once
        // (overlapped micro-batches) counts once.
        std::map<std::pair<uint32_t, std::string>, uint64_t> per_die;
        while (first < fg.size() && ended[first] <= w.begin) ++first;
        for (size_t i = first; i < fg.size() && fg[i].begin < w.end; ++i) {
            const uint64_t b = std::max(fg[i].begin, w.begin), e = std::min(fg[i].end, w.end);
            if (e > b) per_die[{fg[i].die, fg[i].kind}] += e - b;
        }
        std::map<std::string, uint64_t> cover;
        for (const auto& [dk, c] : per_die) cover[dk.second] += std::min(c, len);
        std::string name = "compute";
        uint64_t best = 0;
        for (const auto& [k, c] : cover)
            if (c > best) best = c, name = k;
        if (2 * best < len * std::max<size_t>(dies.size(), 1)) name = "compute";
        auto& a = acc[name];
        a.first += len;
        if (a.second.empty()) a.second.assign(links.size(), 0);
        for (size_t l = 0; l < links.size() && l < w.busy.size(); ++l) a.second[l] += w.busy[l];
    }
    std::vector<Phase> out;
    for (const auto& [name, a] : acc) {
        Phase p;
        p.name = name, p.cycles = a.first, p.links = links;
        for (size_t l = 0; l < links.size(); ++l)
            p.links[l].utilization = a.first ? double(a.second[l]) / double(a.first) : 0.0;
        out.push_back(std::move(p));
    }
    std::sort(out.begin(), out.end(),
              [](const Phase& a, const Phase& b) { return a.cycles > b.cycles; });
    return out;
}

std::vector<size_t> CommPhaseSplit::hotInBoth(const Phase& a, const Phase& b) {
    const auto ha = a.hot(), hb = b.hot();
    std::vector<size_t> out;
    std::set_intersection(ha.begin(), ha.end(), hb.begin(), hb.end(), std::back_inserter(out));
    return out;
}

std::string CommPhaseSplit::slug(const std::string& name) {
    std::string s;
    for (char c : name) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-')
            s += c;
        else if (!s.empty() && s.back() != '-')
            s += '-';
    }
    while (!s.empty() && s.back() == '-') s.pop_back();
    return s;
}

}  // namespace wsc::tb
