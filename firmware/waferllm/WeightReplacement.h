#pragma once
// A layer's weights moved from the prefill's placement to the decode's, as NoC traffic (WaferLLM
// Sec. 4.2-4.3: weights are pre-placed for decode's GEMVs, a different layout from prefill's
// MeshGEMMs; firmware/Redistribution). Prefill (PrefillLayerSchedule, P x P): core (i, j) holds
// K-block ring.at(pos(i) + pos(j)) of each weight, its columns j (qkv and gate/up pre-permuted,
// K and V E wide: KV head g is taken from the columns of its first query head), and the norms'
// scales of features j te... Decode (DecodeLayerSchedule, rows x cols): the GEMV layouts, the
// norms' scales of features i e... Source buffers are named "pre.<prefill name>", destinations
// "dec.<decode name>" (both layouts would otherwise share names such as n1.g on one core).
#include <cstdint>

#include "firmware/KernelPlan.h"
#include "firmware/waferllm/TransitionSpec.h"
#include "noc/Network.h"

namespace wsc::firmware::waferllm {

class WeightReplacement {
  public:
    using Spec = TransitionSpec;  // policy is not used: weights do not depend on it
    explicit WeightReplacement(const Spec& s);
    KernelPlan build(noc::Network& net) const;

  private:
    Spec s_;
};

}  // namespace wsc::firmware::waferllm
