#include "dram/ProtocolChecker.h"

#include <fmt/format.h>

namespace wsc::dram {

ProtocolChecker::ProtocolChecker(const HbmParams& p, uint32_t pseudoChannel)
    : p_(p),
      pch_(pseudoChannel),
      burst_(p.burstCycles()),
      banks_(p.banksPerPseudoChannel()),
      groups_(p.bank_groups) {}

void ProtocolChecker::fail(const DramCommand& c, int64_t t, const std::string& rule,
                           const std::string& detail) const {
    const std::string where = (c.type == CommandType::PREA || c.type == CommandType::REF)
                                  ? std::string("all banks")
                                  : fmt::format("bank group {} bank {}", c.bank_group, c.bank);
    const std::string row =
        (c.type == CommandType::ACT || isColumn(c.type)) ? fmt::format(" row {}", c.row) : "";
    throw ProtocolViolation(
        fmt::format("HBM protocol violation: {} on pseudo-channel {} (channel {} pc {}), {}{} at "
                    "cycle {} breaks {}: {}",
                    commandName(c.type), pch_, pch_ / p_.pseudo_channels, pch_ % p_.pseudo_channels,
                    where, row, t, rule, detail),
        rule);
}

void ProtocolChecker::need(const DramCommand& c, int64_t t, const char* rule, int64_t prev,
                           const char* prevName, int64_t gap) const {
    if (prev == kNever || t - prev >= gap) return;
    fail(
        c, t, rule,
        fmt::format("needs {} cycles after {} at cycle {}, got {}", gap, prevName, prev, t - prev));
}

void ProtocolChecker::checkPrecharge(const DramCommand& c, int64_t t, unsigned bank) const {
    const BankHist& b = banks_[bank];
    if (!b.open) return;  // precharging an idle bank is a legal no-op
    need(c, t, "tRAS", b.act, "ACT", p_.tRAS);
    need(c, t, "tRTP", b.rd, "RD", p_.tRTP);
    need(c, t, "tWR", b.wr, "WR", int64_t(p_.tWL) + burst_ + p_.tWR);
}

void ProtocolChecker::checkRefreshGap(const DramCommand& c, int64_t t, const BankHist& b) const {
    // One postponed refresh is tolerated; beyond that the cells are out of spec.
    const int64_t limit = 2 * int64_t(p_.tREFI);
    if (t - b.refreshed > limit)
        fail(c, t, "tREFI",
             fmt::format("bank last refreshed at cycle {}, {} cycles ago (limit 2 x tREFI = {})",
                         b.refreshed, t - b.refreshed, limit));
}

void ProtocolChecker::checkDataBus(const DramCommand& c, int64_t t, bool read) {
    const int64_t start = t + (read ? p_.tCL : p_.tWL);
    // A change of direction needs an idle turnaround cycle on the bus.
    const int64_t free = bus_free_ + (read != bus_read_ ? int64_t(p_.tRTRS) : 0);
    if (bus_free_ != kNever && start < free)
        fail(c, t, "data bus",
             fmt::format("its burst would start at cycle {} but the bus is busy until {}", start,
                         free));
    bus_free_ = start + burst_;
    bus_read_ = read;
}

void ProtocolChecker::onCommand(const DramCommand& c, uint64_t cycle) {
    const int64_t t = int64_t(cycle);
    if (c.pseudo_channel != pch_)
        fail(c, t, "routing",
             fmt::format("command for pseudo-channel {} reached checker {}", c.pseudo_channel,
                         pch_));
    if (last_cmd_ != kNever && t <= last_cmd_)
        fail(c, t, "command bus", fmt::format("another command was issued at cycle {}", last_cmd_));
    const bool perBank = c.type != CommandType::PREA && c.type != CommandType::REF;
    if (perBank && (c.bank_group >= p_.bank_groups || c.bank >= p_.banks_per_group))
        fail(c, t, "address", "no such bank");
    const unsigned bi = c.bank_group * p_.banks_per_group + c.bank;
    BankHist* b = perBank ? &banks_[bi] : nullptr;
    GroupHist* g = perBank ? &groups_[c.bank_group] : nullptr;

    switch (c.type) {
        case CommandType::ACT: {
            if (b->open) fail(c, t, "bank state", fmt::format("row {} is still open", b->row));
            if (c.row >= p_.rows) fail(c, t, "address", "row out of range");
            need(c, t, "tRC", b->act, "ACT", p_.tRC);
            need(c, t, "tRP", b->pre, "PRE", p_.tRP);
            need(c, t, "tRFCpb", b->refpb, "REFpb", p_.tRFCpb);
            need(c, t, "tRFC", ref_, "REF", p_.tRFC);
            need(c, t, "tRRD_L", g->act, "ACT in the same bank group", p_.tRRD_L);
            need(c, t, "tRRD_S", act_, "ACT", p_.tRRD_S);
            need(c, t, "tRREFD", refpb_, "REFpb", p_.tRREFD);
            // tFAW: this would be the fifth ACT; the oldest of the last four bounds it.
            need(c, t, "tFAW", acts_[acts_pos_], "the fourth-last ACT", p_.tFAW);
            b->open = true;
            b->row = c.row;
            b->act = g->act = act_ = t;
            acts_[acts_pos_] = t;
            acts_pos_ = (acts_pos_ + 1) % 4;
            break;
        }
        case CommandType::RD:
        case CommandType::WR: {
            const bool rd = c.type == CommandType::RD;
            if (!b->open) fail(c, t, "bank state", "the bank is precharged (no open row)");
            if (b->row != c.row)
                fail(c, t, "bank state", fmt::format("the open row is {}", b->row));
            if (c.column >= p_.burstsPerRow()) fail(c, t, "address", "column out of range");
            if (rd) {
                need(c, t, "tRCD", b->act, "ACT", p_.tRCD);
                need(c, t, "tCCD_L", g->rd, "RD in the same bank group", p_.tCCD_L);
                need(c, t, "tCCD_S", rd_, "RD", p_.tCCD_S);
                need(c, t, "tWTR_L", g->wr, "WR in the same bank group",
                     int64_t(p_.tWL) + burst_ + p_.tWTR_L);
                need(c, t, "tWTR_S", wr_, "WR", int64_t(p_.tWL) + burst_ + p_.tWTR_S);
            } else {
                need(c, t, "tRCDWR", b->act, "ACT", p_.tRCDWR);
                need(c, t, "tCCD_L", g->wr, "WR in the same bank group", p_.tCCD_L);
                need(c, t, "tCCD_S", wr_, "WR", p_.tCCD_S);
                need(c, t, "tRTW", rd_, "RD",
                     std::max<int64_t>(1, int64_t(p_.tCL) + burst_ + p_.tRTRS - p_.tWL));
            }
            checkDataBus(c, t, rd);
            if (rd)
                b->rd = g->rd = rd_ = t;
            else
                b->wr = g->wr = wr_ = t;
            break;
        }
        case CommandType::PRE:
            checkPrecharge(c, t, bi);
            if (b->open) {
                b->open = false;
                b->pre = t;
            }
            break;
        case CommandType::PREA:
            for (unsigned i = 0; i < banks_.size(); ++i) {
                checkPrecharge(c, t, i);
                if (banks_[i].open) {
                    banks_[i].open = false;
                    banks_[i].pre = t;
                }
            }
            break;
        case CommandType::REF:
            need(c, t, "tRFC", ref_, "REF", p_.tRFC);
            for (unsigned i = 0; i < banks_.size(); ++i) {
                BankHist& x = banks_[i];
                if (x.open)
                    fail(c, t, "bank state",
                         fmt::format("bank {} still has row {} open", i, x.row));
                need(c, t, "tRP", x.pre, "PRE", p_.tRP);
                need(c, t, "tRC", x.act, "ACT", p_.tRC);
                need(c, t, "tRFCpb", x.refpb, "REFpb", p_.tRFCpb);
                checkRefreshGap(c, t, x);
                x.refreshed = t;
            }
            ref_ = t;
            break;
        case CommandType::REFpb:
            if (b->open) fail(c, t, "bank state", fmt::format("row {} is still open", b->row));
            need(c, t, "tRP", b->pre, "PRE", p_.tRP);
            need(c, t, "tRC", b->act, "ACT", p_.tRC);
            need(c, t, "tRFCpb", b->refpb, "REFpb", p_.tRFCpb);
            need(c, t, "tRFC", ref_, "REF", p_.tRFC);
            need(c, t, "tRREFD", refpb_, "REFpb", p_.tRREFD);
            checkRefreshGap(c, t, *b);
            b->refpb = refpb_ = b->refreshed = t;
            break;
    }
    last_cmd_ = t;
    ++checked_;
    ++per_type_[unsigned(c.type)];
}

void ProtocolChecker::finish(uint64_t cycle) {
    if (p_.refresh_mode == RefreshMode::None) return;
    for (unsigned i = 0; i < banks_.size(); ++i) {
        DramCommand c;
        c.type = CommandType::REFpb;  // reported as the refresh that never came
        c.pseudo_channel = uint16_t(pch_);
        c.bank_group = uint8_t(i / p_.banks_per_group);
        c.bank = uint8_t(i % p_.banks_per_group);
        checkRefreshGap(c, int64_t(cycle), banks_[i]);
    }
}

}  // namespace wsc::dram
