#pragma once
// The memory system moved to hw/ (hw::MemorySystem, built from hw::MemoryStack like the dies'
// HBM stacks); testbenches keep using it under its old name.
#include "hw/MemorySystem.h"

namespace wsc::tb {
using hw::MemorySystem;
using hw::MemoryTarget;
}  // namespace wsc::tb
