#pragma once
// A traffic trace: messages to replay on the NoC (docs/NOC.md, "Trace replay"). Text, one message
// per line, blanks between fields, '#' starts a comment:
//   ID CYCLE SRC DST BYTES [after=ID[,ID...]]
// ID: a unique non-negative integer; CYCLE: the earliest injection cycle; SRC, DST: NoC node
// indices; BYTES >= 1; after=: messages (given on earlier lines) that must be delivered first.
// Every error names the file, the line and what was expected (hw::ConfigError, exit 2).
#include <cstdint>
#include <string>
#include <vector>

namespace wsc::tb {

class TrafficTrace {
  public:
    struct Entry {
        uint64_t id = 0;
        uint64_t cycle = 0;
        uint32_t src = 0, dst = 0;
        uint64_t bytes = 0;
        std::vector<uint32_t> after;  // indices into entries() of the messages it waits for
        int line = 0;
    };
    static constexpr uint64_t kMaxFileBytes = uint64_t{256} << 20;
    // Every packet of a message is queued at its source at once, so a message's size is host
    // memory too: at most 1 GiB a message.
    static constexpr uint64_t kMaxMessageBytes = uint64_t{1} << 30;

    // `nodes`: the NoC's node count (SRC and DST must be below it).
    static TrafficTrace parse(const std::string& text, const std::string& file, uint32_t nodes);
    static TrafficTrace loadFile(const std::string& path, uint32_t nodes);

    const std::vector<Entry>& entries() const { return entries_; }
    const std::string& file() const { return file_; }
    uint64_t totalBytes() const;

  private:
    std::vector<Entry> entries_;
    std::string file_;
};

}  // namespace wsc::tb
