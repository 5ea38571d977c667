#pragma once
// The prefill-to-decode transition both re-placements (KvReplacement, WeightReplacement) move
// data across: the prefill's P x P block and the decode's rows x cols block of one mesh, the
// model's layers and the prompt. It gives each side's schedule spec, so both layouts are the
// ones PrefillLayerSchedule and DecodeLayerSchedule build, and checks their shapes.
#include <cstdint>

#include "firmware/waferllm/DecodeLayerSchedule.h"
#include "firmware/waferllm/DecodeModelData.h"
#include "firmware/waferllm/KvCache.h"
#include "firmware/waferllm/LayerShape.h"
#include "firmware/waferllm/PrefillLayerSchedule.h"

namespace wsc::firmware::waferllm {

struct TransitionSpec {
    uint32_t mesh_x = 0, mesh_y = 0;
    uint32_t p = 1;               // the prefill's P x P block (top left)
    uint32_t rows = 1, cols = 1;  // the decode's block (top left)
    LayerShape layer;
    uint32_t layers = 1;
    uint32_t prompt = 1;
    KvCache::Policy policy = KvCache::Policy::Shift;  // the decode's cache layout (KV only)
    bool functional = false;  // sources preset, destinations expected (KernelPlan)
    uint64_t seed = 1;
    const DecodeModelData* data = nullptr;  // null: drawn from seed

    PrefillLayerSchedule::Spec prefill() const;
    DecodeLayerSchedule::Spec decode() const;
    // Both layouts' shape checks (not their functional ones: moving data needs no attention).
    void check() const;
};

}  // namespace wsc::firmware::waferllm
