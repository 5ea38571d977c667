#pragma once
// Adapter from one Verilated wsc_router_top class to RtlModel. A template, because each
// parameter set is its own generated class; every one has the same port members (the top shell
// fixes their shapes), so one body fits all. Only RtlModelTable.cpp includes this header.
#include <verilated.h>
#include <verilated_fst_c.h>

#include <memory>
#include <string>

#include "hw/rtl/RtlModel.h"

namespace wsc::rtl {

template <class V, bool kTraced>
class VerilatedRouterModel : public RtlModel {
  public:
    VerilatedRouterModel() : ctx_(std::make_unique<VerilatedContext>()) {
        // Tracing must be allowed before the model is built, or trace() has nothing to hook.
        if (kTraced) ctx_->traceEverOn(true);
        m_ = std::make_unique<V>(ctx_.get(), "wsc_router");
        p_.my_x = &m_->my_x;
        p_.my_y = &m_->my_y;
        p_.port_en = &m_->port_en;
        p_.cfg_ser = &m_->cfg_ser[0];
        p_.rst_n = &m_->rst_n;
        p_.in_valid = &m_->in_valid;
        p_.in_flit = &m_->in_flit[0];
        p_.cr_in_valid = &m_->cr_in_valid;
        p_.cr_in_vc = &m_->cr_in_vc[0];
        p_.out_valid = &m_->out_valid;
        p_.out_flit = &m_->out_flit[0];
        p_.cr_out_valid = &m_->cr_out_valid;
        p_.cr_out_vc = &m_->cr_out_vc[0];
        p_.sw_out = &m_->sw_out[0];
        p_.err_overflow = &m_->err_overflow;
        p_.err_credit = &m_->err_credit;
        p_.err_protocol = &m_->err_protocol;
        m_->clk = 0;
    }
    ~VerilatedRouterModel() override {
        if constexpr (kTraced)
            if (tfp_) tfp_->close();
        m_->final();
    }

    RtlPins& pins() override { return p_; }
    void settle() override {
        m_->clk = 0;
        m_->eval();
    }
    void rise() override {
        m_->clk = 1;
        m_->eval();
    }
    bool openTrace(const std::string& path) override {
        if constexpr (kTraced) {
            tfp_ = std::make_unique<VerilatedFstC>();
            m_->trace(tfp_.get(), 99);
            tfp_->open(path.c_str());
            return true;
        } else {
            (void)path;
            return false;
        }
    }
    void dump(uint64_t time_ps) override {
        if constexpr (kTraced)
            if (tfp_) tfp_->dump(time_ps);
        (void)time_ps;
    }

  private:
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<V> m_;
    std::unique_ptr<VerilatedFstC> tfp_;
    RtlPins p_{};
};

}  // namespace wsc::rtl
