#include "core/Dataflow.h"

#include "core/InputStationary.h"
#include "core/OutputStationary.h"
#include "core/WeightStationary.h"

namespace wsc::core {

std::unique_ptr<Dataflow> Dataflow::make(DataflowKind k) {
    switch (k) {
        case DataflowKind::WeightStationary:
            return std::make_unique<WeightStationary>();
        case DataflowKind::InputStationary:
            return std::make_unique<InputStationary>();
        case DataflowKind::OutputStationary:
            break;
    }
    return std::make_unique<OutputStationary>();
}

}  // namespace wsc::core
