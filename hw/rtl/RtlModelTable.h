#pragma once
// The Verilated router variants compiled into this build. Verilator fixes SystemVerilog
// parameters when it translates, so every (ports, VCs, depth, pipeline) is a separate C++ class;
// hw/rtl/CMakeLists.txt generates RtlModelTable.cpp with one row per variant it verilated.
#include <cstdint>
#include <memory>
#include <vector>

#include "hw/rtl/RtlModel.h"

namespace wsc::rtl {

class RtlModelTable {
  public:
    struct Shape {
        uint32_t ports, vcs, depth, pipeline;
        bool traced;  // built with --trace-fst
    };
    struct Row {
        Shape shape;
        std::unique_ptr<RtlModel> (*make)();
    };
    static const std::vector<Row>& rows();
    // Why the table is empty ("" when Verilator was used).
    static const char* unavailableReason();
};

}  // namespace wsc::rtl
