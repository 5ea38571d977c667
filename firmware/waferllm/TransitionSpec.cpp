#include "firmware/waferllm/TransitionSpec.h"

namespace wsc::firmware::waferllm {

PrefillLayerSchedule::Spec TransitionSpec::prefill() const {
    PrefillLayerSchedule::Spec s;
    s.mesh_x = mesh_x, s.mesh_y = mesh_y, s.p = p, s.layer = layer, s.layers = layers;
    s.prompt = prompt, s.functional = functional, s.seed = seed, s.data = data;
    return s;
}

DecodeLayerSchedule::Spec TransitionSpec::decode() const {
    DecodeLayerSchedule::Spec s;
    s.mesh_x = mesh_x, s.mesh_y = mesh_y, s.rows = rows, s.cols = cols;
    s.layer = layer, s.layers = layers, s.policy = policy, s.prompt = prompt;
    s.functional = functional, s.seed = seed, s.data = data;
    return s;
}

void TransitionSpec::check() const {
    TransitionSpec shapes = *this;
    shapes.functional = false;
    (void)PrefillLayerSchedule(shapes.prefill());
    (void)DecodeLayerSchedule(shapes.decode());
}

}  // namespace wsc::firmware::waferllm
