#include "noc/InputFile.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace wsc::noc {

std::string InputFile::read(const std::string& path, uint64_t max_bytes) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st))
        throw Error(std::string("cannot open file: ") +
                    (ec ? ec.message() : std::string(std::strerror(ENOENT))));
    if (!fs::is_regular_file(st)) {
        const char* kind = fs::is_directory(st)        ? "it is a directory"
                           : fs::is_fifo(st)           ? "it is a FIFO"
                           : fs::is_character_file(st) ? "it is a character device"
                           : fs::is_block_file(st)     ? "it is a block device"
                           : fs::is_socket(st)         ? "it is a socket"
                                                       : "it is not a regular file";
        throw Error(fmt::format("cannot read file: {} (inputs are regular files)", kind));
    }
    const uint64_t size = fs::file_size(path, ec);
    if (!ec && size > max_bytes)
        throw Error(fmt::format("file of {} bytes is larger than the {} bytes an input may have",
                                size, max_bytes));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(std::string("cannot open file: ") + std::strerror(errno));
    std::string text;
    char buf[65536];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        text.append(buf, static_cast<size_t>(in.gcount()));
        if (text.size() > max_bytes)
            throw Error(
                fmt::format("file is larger than the {} bytes an input may have", max_bytes));
    }
    if (in.bad()) throw Error("cannot read file");
    return text;
}

}  // namespace wsc::noc
