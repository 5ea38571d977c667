#include "dram/TimingTracker.h"

#include <algorithm>

namespace wsc::dram {

namespace {
// Rules the test-only knob can switch off; each is set to its smallest non-zero value.
struct Breakable {
    const char* name;
    uint32_t HbmParams::*field;
};
constexpr Breakable kBreakable[] = {
    {"tRCD", &HbmParams::tRCD},     {"tRCDWR", &HbmParams::tRCDWR}, {"tRP", &HbmParams::tRP},
    {"tRAS", &HbmParams::tRAS},     {"tRC", &HbmParams::tRC},       {"tRRD_S", &HbmParams::tRRD_S},
    {"tRRD_L", &HbmParams::tRRD_L}, {"tFAW", &HbmParams::tFAW},     {"tCCD_S", &HbmParams::tCCD_S},
    {"tCCD_L", &HbmParams::tCCD_L}, {"tWTR_S", &HbmParams::tWTR_S}, {"tWTR_L", &HbmParams::tWTR_L},
    {"tRTP", &HbmParams::tRTP},     {"tWR", &HbmParams::tWR},       {"tRFC", &HbmParams::tRFC},
    {"tRFCpb", &HbmParams::tRFCpb}, {"tRREFD", &HbmParams::tRREFD},
};

HbmParams relaxed(const HbmParams& p) {
    HbmParams q = p;
    for (const auto& b : kBreakable)
        if (p.debug_break_rule == b.name) q.*(b.field) = (b.field == &HbmParams::tFAW) ? 0 : 1;
    return q;
}
}  // namespace

bool TimingTracker::canBreak(const std::string& rule) {
    for (const auto& b : kBreakable)
        if (rule == b.name) return true;
    return false;
}

TimingTracker::TimingTracker(const HbmParams& params) {
    const HbmParams p = relaxed(params);
    tRL_ = p.tCL;
    tWL_ = p.tWL;
    tBurst_ = p.burstCycles();
    tRCD_ = p.tRCD;
    tRCDWR_ = p.tRCDWR;
    tRP_ = p.tRP;
    tRAS_ = p.tRAS;
    tRC_ = p.tRC;
    tCCD_S_ = p.tCCD_S;
    tCCD_L_ = p.tCCD_L;
    tRRD_S_ = p.tRRD_S;
    tRRD_L_ = p.tRRD_L;
    tFAW_ = p.tFAW;
    tWR_ = p.tWR;
    tWTR_S_ = p.tWTR_S;
    tWTR_L_ = p.tWTR_L;
    tRTP_ = p.tRTP;
    tRTRS_ = p.tRTRS;
    tRFC_ = p.tRFC;
    tRFCpb_ = p.tRFCpb;
    tRREFD_ = p.tRREFD;
    banks_per_group_ = p.banks_per_group;
    banks_.resize(p.banksPerPseudoChannel());
    groups_.resize(p.bank_groups);
}

uint64_t TimingTracker::earliest(const DramCommand& c) const {
    const unsigned b = bankIndex(c.bank_group, c.bank);
    uint64_t t = next_cmd_;
    switch (c.type) {
        case CommandType::ACT: {
            t = std::max({t, banks_[b].next_act, groups_[c.bank_group].next_act, next_act_});
            if (faw_count_ == 4) t = std::max(t, faw_[faw_pos_] + tFAW_);
            break;
        }
        case CommandType::RD:
            t = std::max({t, banks_[b].next_rd, groups_[c.bank_group].next_rd, next_rd_});
            break;
        case CommandType::WR:
            t = std::max({t, banks_[b].next_wr, groups_[c.bank_group].next_wr, next_wr_});
            break;
        case CommandType::PRE:
            t = std::max(t, banks_[b].next_pre);
            break;
        case CommandType::PREA:
            for (const Bank& bk : banks_)
                if (bk.open) t = std::max(t, bk.next_pre);
            break;
        case CommandType::REF:
            // next_act carries tRC after ACT, tRP after PRE and tRFC/tRFCpb after refreshes.
            for (const Bank& bk : banks_) t = std::max(t, bk.next_act);
            break;
        case CommandType::REFpb:
            t = std::max({t, banks_[b].next_act, next_refpb_});
            break;
    }
    return t;
}

void TimingTracker::issue(const DramCommand& c, uint64_t now) {
    const unsigned b = bankIndex(c.bank_group, c.bank);
    auto raise = [](uint64_t& v, uint64_t t) { v = std::max(v, t); };
    next_cmd_ = now + 1;
    switch (c.type) {
        case CommandType::ACT: {
            Bank& bk = banks_[b];
            bk.open = true;
            bk.row = c.row;
            ++open_banks_;
            raise(bk.next_act, now + tRC_);
            raise(bk.next_pre, now + tRAS_);
            raise(bk.next_rd, now + tRCD_);
            raise(bk.next_wr, now + tRCDWR_);
            raise(groups_[c.bank_group].next_act, now + tRRD_L_);
            raise(next_act_, now + tRRD_S_);
            if (faw_count_ < 4) {
                faw_[(faw_pos_ + faw_count_) % 4] = now;
                ++faw_count_;
            } else {
                faw_[faw_pos_] = now;  // overwrite the oldest
                faw_pos_ = (faw_pos_ + 1) % 4;
            }
            break;
        }
        case CommandType::PRE:
        case CommandType::PREA: {
            for (unsigned i = 0; i < banks_.size(); ++i) {
                if (c.type == CommandType::PRE && i != b) continue;
                Bank& bk = banks_[i];
                if (!bk.open) continue;
                bk.open = false;
                --open_banks_;
                raise(bk.next_act, now + tRP_);
            }
            break;
        }
        case CommandType::RD: {
            raise(banks_[b].next_pre, now + tRTP_);
            raise(groups_[c.bank_group].next_rd, now + tCCD_L_);
            raise(next_rd_, now + tCCD_S_);
            // The write burst must start after the read burst left the bus, plus a turnaround.
            const uint64_t rdToWr = uint64_t(tRL_) + tBurst_ + tRTRS_;
            raise(next_wr_, now + (rdToWr > tWL_ ? rdToWr - tWL_ : 1));
            break;
        }
        case CommandType::WR: {
            const uint64_t dataEnd = now + tWL_ + tBurst_;
            raise(banks_[b].next_pre, dataEnd + tWR_);
            raise(groups_[c.bank_group].next_wr, now + tCCD_L_);
            raise(groups_[c.bank_group].next_rd, dataEnd + tWTR_L_);
            raise(next_wr_, now + tCCD_S_);
            raise(next_rd_, dataEnd + tWTR_S_);
            break;
        }
        case CommandType::REF:
            for (Bank& bk : banks_) raise(bk.next_act, now + tRFC_);
            raise(next_refpb_, now + tRFC_);
            break;
        case CommandType::REFpb:
            raise(banks_[b].next_act, now + tRFCpb_);
            raise(next_refpb_, now + tRREFD_);
            raise(next_act_, now + tRREFD_);
            break;
    }
}

}  // namespace wsc::dram
