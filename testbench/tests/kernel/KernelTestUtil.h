#pragma once
// The WSE-2-like numbers of configs/wse2_kernels.yaml, built in C++ so kernel tests need no file.
// Link energies are test values (they never change cycles); tests that check energy set them.
#include "core/CoreParams.h"
#include "noc/NocParams.h"

namespace wsc::test {

inline noc::NocParams wseNoc(double link_pj_per_bit = 0.0, double local_pj_per_bit = 0.0) {
    noc::NocParams n;
    n.clock_hz = 1.1e9;
    n.flit_bytes = 4;
    n.route_limit = 24;
    n.router.pipeline = 0, n.router.vcs = 2, n.router.vc_buffer_flits = 8;
    n.link.latency = 1, n.link.width_bytes = 4, n.link.energy_pj_per_bit = link_pj_per_bit;
    n.local_link.latency = 2, n.local_link.width_bytes = 4;
    n.local_link.energy_pj_per_bit = local_pj_per_bit;
    return n;
}

inline core::CoreParams wseCore() {
    core::CoreParams c;
    c.pe.rows = c.pe.cols = 1;
    c.vector.lanes = 1;
    return c;
}

}  // namespace wsc::test
