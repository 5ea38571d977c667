#pragma once
// The text form of firmware (grammar in docs/ISA.md): one statement per line,
//   .core 3
//   .buffer A0 256 fp32
//   .group 1 0,1,2,3
//   gemm a=A0 b=B0 c=C m=16 k=16 n=16 acc
// dump() writes a canonical form that parse() reads back to the same firmware. A malformed
// text throws ParseError with the file, the line and what was expected.
#include <cstdint>
#include <string>

#include "firmware/Firmware.h"

namespace wsc::firmware {

class ProgramText {
  public:
    static std::string dump(const Firmware& fw);
    // `cores` = 0: as many cores as the highest `.core` + 1.
    static Firmware parse(const std::string& text, const std::string& file, uint32_t cores = 0);
    static constexpr uint64_t kMaxFileBytes = uint64_t{64} << 20;  // a regular file of <= 64 MB
    // Core ids are below 2^20 (a wafer of a million cores; WSE-2 has 850,000).
    static constexpr uint32_t kMaxCores = 1u << 20;
    static Firmware loadFile(const std::string& path, uint32_t cores = 0);
    static void saveFile(const Firmware& fw, const std::string& path);
};

}  // namespace wsc::firmware
