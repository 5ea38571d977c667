#include "firmware/model/Operator.h"

namespace wsc::firmware::model {

const char* opKindName(OpKind k) {
    switch (k) {
        case OpKind::Embedding:
            return "embedding";
        case OpKind::Norm:
            return "norm";
        case OpKind::Linear:
            return "linear";
        case OpKind::AttnScore:
            return "attn_score";
        case OpKind::Softmax:
            return "softmax";
        case OpKind::AttnContext:
            return "attn_context";
        case OpKind::Activation:
            return "activation";
        case OpKind::Residual:
            return "residual";
        case OpKind::Router:
            return "router";
        case OpKind::Loss:
            return "loss";
    }
    return "?";
}

const char* tpSplitName(TpSplit s) {
    switch (s) {
        case TpSplit::Replicated:
            return "replicated";
        case TpSplit::Column:
            return "column";
        case TpSplit::Row:
            return "row";
        case TpSplit::Heads:
            return "heads";
    }
    return "?";
}

const char* ffnRoleName(FfnRole r) {
    switch (r) {
        case FfnRole::None:
            return "none";
        case FfnRole::Dense:
            return "dense";
        case FfnRole::RoutedExpert:
            return "routed_expert";
        case FfnRole::SharedExpert:
            return "shared_expert";
    }
    return "?";
}

}  // namespace wsc::firmware::model
