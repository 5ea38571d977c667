#pragma once
// The prompt's KV cache moved from where the prefill leaves it to where the decode reads it, as
// NoC traffic (WaferLLM Sec. 4.3, "prefill and decode transition"; firmware/Redistribution).
// Prefill (PrefillLayerSchedule, P x P): core (i, j) holds k and v of tokens i tm.. and features
// j te.. of the E-wide projection (KV head g's features are taken from the columns of its first
// query head, g G). Decode (DecodeLayerSchedule, rows x cols): KV head g on columns g Qh.., each
// column d of its features, the tokens split over the rows as KvCache lays a prompt out (the last
// row keeps a slot for the first decode step's token). Every layer's k and v move (the weights:
// WeightReplacement).
#include <cstdint>

#include "firmware/KernelPlan.h"
#include "firmware/waferllm/TransitionSpec.h"
#include "noc/Network.h"

namespace wsc::firmware::waferllm {

class KvReplacement {
  public:
    using Spec = TransitionSpec;
    explicit KvReplacement(const Spec& s);
    KernelPlan build(noc::Network& net) const;

  private:
    Spec s_;
};

}  // namespace wsc::firmware::waferllm
