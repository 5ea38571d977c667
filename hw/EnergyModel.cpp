#include "hw/EnergyModel.h"

namespace wsc::hw {

EnergyModel::EnergyModel(const noc::NocParams& noc, const EnergyParams& energy,
                         const std::optional<dram::HbmParams>& hbm)
    : noc_(noc), e_(energy) {
    if (hbm) hbm_read_pj_ = hbm->read_pj_per_bit, hbm_write_pj_ = hbm->write_pj_per_bit;
}

EnergyReport EnergyModel::evaluate(const EnergyEvents& ev) const {
    EnergyReport r;
    r.seconds = double(ev.cycles) / noc_.clock_hz;
    const auto add = [&r](const char* name, double count, const char* unit, double each) {
        r.components.push_back({name, count, unit, each, count * each});
        r.total_pj += count * each;
    };
    add("compute", double(ev.flops), "FLOP", e_.compute_pj_per_flop);
    add("sram", double(ev.sram_bytes), "B", e_.sram_pj_per_byte);
    add("noc links", double(ev.link_bits), "bit-hop", noc_.link.energy_pj_per_bit);
    add("ni links", double(ev.local_bits), "bit", noc_.local_link.energy_pj_per_bit);
    add("d2d links", double(ev.d2d_bits), "bit", noc_.d2d.energy_pj_per_bit);
    if (noc_.topology.wafer_x || noc_.topology.wafer_y)
        add("w2w links", double(ev.w2w_bits), "bit", noc_.w2w.energy_pj_per_bit);
    add("hbm read", double(ev.hbm_read_bits), "bit", hbm_read_pj_);
    add("hbm write", double(ev.hbm_write_bits), "bit", hbm_write_pj_);
    // Static power: W x s = J; x 1e12 for pJ. Counted as seconds x pJ per second.
    add("static", r.seconds, "s", e_.static_power_w * 1e12);
    return r;
}

void EnergyModel::countNetwork(EnergyEvents& ev, const noc::Network& net) {
    for (const noc::Link& l : net.links()) {
        switch (l.kind()) {
            case noc::Link::Kind::OnDie:
                ev.link_bits += l.bitsSent();
                break;
            case noc::Link::Kind::D2D:
                (net.topology().isW2W(l.src, l.src_port) ? ev.w2w_bits : ev.d2d_bits) +=
                    l.bitsSent();
                break;
            case noc::Link::Kind::Injection:
            case noc::Link::Kind::Ejection:
                ev.local_bits += l.bitsSent();
                break;
        }
    }
}

void EnergyModel::countCore(EnergyEvents& ev, const core::CoreStats& s) {
    ev.flops += 2 * s.macs + s.vector_elems;
    ev.sram_bytes += s.bytes_in + s.bytes_out + s.dma_bytes;
    ev.hbm_read_bits += 8 * s.dma_bytes;
}

}  // namespace wsc::hw
