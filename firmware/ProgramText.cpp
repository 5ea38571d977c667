#include "firmware/ProgramText.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "firmware/ParseError.h"
#include "firmware/ValidationError.h"
#include "noc/InputFile.h"

namespace wsc::firmware {

namespace {

// Which instruction field a text key fills.
enum class Field {
    A,
    B,
    C,
    RBuf,
    M,
    K,
    N,
    DType,
    Flag,  // a bare word that sets KeyDef::flag in Instruction::flags
    Peer,
    Route,
    Peer2,
    Route2,
    Bytes,
    Addr,
    Imm,
    Event,
    Group
};

struct KeyDef {
    const char* key;
    Field field;
    bool required;
    uint8_t flag = 0;  // Field::Flag only
};

struct OpDef {
    Opcode op;
    std::vector<KeyDef> keys;
};

const std::vector<OpDef>& opTable() {
    static const std::vector<OpDef> t = [] {
        std::vector<OpDef> v;
        const KeyDef a{"a", Field::A, true}, b{"b", Field::B, true}, c{"c", Field::C, true};
        const KeyDef n{"n", Field::N, true};
        v.push_back({Opcode::Gemm,
                     {a,
                      b,
                      c,
                      {"m", Field::M, true},
                      {"k", Field::K, true},
                      {"n", Field::N, true},
                      {"dtype", Field::DType, false},
                      {"acc", Field::Flag, false, Instruction::kAccumulate},
                      {"transb", Field::Flag, false, Instruction::kTransB}}});
        v.push_back({Opcode::Gemv,
                     {a,
                      b,
                      c,
                      {"k", Field::K, true},
                      {"n", Field::N, true},
                      {"dtype", Field::DType, false},
                      {"acc", Field::Flag, false, Instruction::kAccumulate}}});
        for (Opcode op :
             {Opcode::VAdd, Opcode::VSub, Opcode::VMul, Opcode::VMax, Opcode::VBSub, Opcode::VBMul})
            v.push_back({op, {a, b, c, n}});
        for (Opcode op : {Opcode::VExp, Opcode::VRecip, Opcode::VSilu, Opcode::VGelu, Opcode::VCopy,
                          Opcode::VRedSum, Opcode::VRedMax, Opcode::VSqSum})
            v.push_back({op, {a, c, n}});
        v.push_back({Opcode::VScale, {a, c, n, {"s", Field::Imm, true}}});
        v.push_back({Opcode::VRsqrt, {a, c, n, {"eps", Field::Imm, false}}});
        const KeyDef bytes{"bytes", Field::Bytes, true}, ev{"event", Field::Event, false};
        v.push_back({Opcode::Send,
                     {{"buf", Field::A, true},
                      {"to", Field::Peer, false},
                      {"route", Field::Route, false},
                      bytes}});
        v.push_back({Opcode::Recv,
                     {{"buf", Field::C, true},
                      {"from", Field::Peer, false},
                      {"route", Field::Route, false},
                      bytes}});
        v.push_back({Opcode::Relay,
                     {{"from", Field::Peer, false},
                      {"from_route", Field::Route, false},
                      {"to", Field::Peer2, false},
                      {"to_route", Field::Route2, false},
                      bytes}});
        v.push_back(
            {Opcode::DmaLoad, {{"buf", Field::C, true}, {"addr", Field::Addr, true}, bytes, ev}});
        v.push_back(
            {Opcode::DmaStore, {{"buf", Field::A, true}, {"addr", Field::Addr, true}, bytes, ev}});
        v.push_back({Opcode::DmaPut,
                     {{"buf", Field::A, true},
                      {"core", Field::Peer, true},
                      {"dst", Field::RBuf, true},
                      bytes,
                      ev}});
        v.push_back({Opcode::DmaGet,
                     {{"buf", Field::C, true},
                      {"core", Field::Peer, true},
                      {"src", Field::RBuf, true},
                      bytes,
                      ev}});
        v.push_back({Opcode::Wait, {{"event", Field::Event, true}, {"count", Field::N, false}}});
        v.push_back({Opcode::WaitAll, {}});
        v.push_back({Opcode::Barrier, {{"group", Field::Group, true}}});
        v.push_back({Opcode::Signal, {{"event", Field::Event, true}}});
        v.push_back({Opcode::Loop, {{"count", Field::N, true}}});
        v.push_back({Opcode::EndLoop, {}});
        v.push_back({Opcode::Swap, {a, b}});
        return v;
    }();
    return t;
}

const OpDef* findOp(const std::string& name) {
    for (const auto& d : opTable())
        if (name == opcodeName(d.op)) return &d;
    return nullptr;
}

const OpDef& opDef(Opcode op) {
    for (const auto& d : opTable())
        if (d.op == op) return d;
    throw std::logic_error("opcode without a text form");
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream is(s);
    std::string w;
    while (is >> w) out.push_back(w);
    return out;
}

bool parseDType(const std::string& s, DType& t) {
    for (DType d : {DType::FP32, DType::FP16, DType::BF16, DType::INT8})
        if (s == dtypeName(d)) return t = d, true;
    return false;
}

struct RemoteRef {
    uint32_t core;
    size_t pc;
    std::string name;
    int line;
};

class Parser {
  public:
    Parser(const std::string& file) : file_(file) {}

    [[noreturn]] void fail(const std::string& what) const { throw ParseError(file_, line_, what); }

    uint64_t number(const std::string& key, const std::string& v, uint64_t max) const {
        const char* s = v.c_str();
        char* end = nullptr;
        errno = 0;
        bool hex = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
        if (v.empty() || !(std::isdigit(static_cast<unsigned char>(v[0]))))
            end = const_cast<char*>(s);
        else {
            unsigned long long x = std::strtoull(s, &end, hex ? 16 : 10);
            if (*end == '\0' && errno == 0 && x <= max) return x;
            if (*end == '\0')
                fail(fmt::format("expected an integer <= {} for '{}', got '{}'", max, key, v));
        }
        fail(fmt::format("expected an integer for '{}', got '{}'", key, v));
    }

    Firmware run(const std::string& text, uint32_t cores) {
        std::istringstream in(text);
        std::string raw;
        std::map<uint32_t, Program> progs;
        Program* cur = nullptr;
        uint32_t cur_core = 0;
        std::vector<RemoteRef> remote;
        uint32_t max_core = 0;
        bool any = false;
        while (std::getline(in, raw)) {
            ++line_;
            auto hash = raw.find('#');
            if (hash != std::string::npos) raw.resize(hash);
            auto words = split(raw);
            if (words.empty()) continue;
            const std::string& w0 = words[0];
            if (w0 == ".core") {
                if (words.size() != 2) fail(fmt::format("expected '.core <id>', got '{}'", raw));
                // Bounded: every id below the highest gets a (possibly empty) program, so an
                // unbounded id would turn one line into gigabytes (found by fuzz_firmware).
                cur_core =
                    static_cast<uint32_t>(number("core", words[1], ProgramText::kMaxCores - 1));
                if (cores && cur_core >= cores)
                    fail(fmt::format("expected a core id < {} (the chip's cores), got {}", cores,
                                     cur_core));
                if (progs.count(cur_core)) fail(fmt::format("core {} is defined twice", cur_core));
                cur = &progs[cur_core];
                core_line_[cur_core] = line_;
                max_core = std::max(max_core, cur_core);
                any = true;
                continue;
            }
            if (!cur)
                fail(fmt::format("expected '.core <id>' before the first statement, got '{}'", w0));
            if (w0 == ".buffer") {
                if (words.size() < 3 || words.size() > 4)
                    fail(
                        fmt::format("expected '.buffer <name> <elements> [dtype]', got '{}'", raw));
                DType t = DType::FP32;
                if (words.size() == 4 && !parseDType(words[3], t))
                    fail(fmt::format("expected a dtype (fp32, fp16, bf16, int8), got '{}'",
                                     words[3]));
                uint32_t elems = static_cast<uint32_t>(number("elements", words[2], 0xFFFFFFFFull));
                if (elems == 0) fail("expected a buffer of at least 1 element, got 0");
                if (cur->findBuffer(words[1]) != kNoBuf)
                    fail(fmt::format("expected a new buffer name, got '{}' (declared before)",
                                     words[1]));
                cur->addBuffer(words[1], elems, t);
                continue;
            }
            if (w0 == ".view") {
                // .view <name> <parent> <offset> <elements>: elements of a declared buffer.
                if (words.size() != 5)
                    fail(fmt::format(
                        "expected '.view <name> <parent buffer> <offset> <elements>', got '{}'",
                        raw));
                if (cur->findBuffer(words[1]) != kNoBuf)
                    fail(fmt::format("expected a new buffer name, got '{}' (declared before)",
                                     words[1]));
                const uint16_t parent = cur->findBuffer(words[2]);
                if (parent == kNoBuf)
                    fail(fmt::format("expected a declared parent buffer, got '{}'", words[2]));
                const auto off = static_cast<uint32_t>(number("offset", words[3], 0xFFFFFFFFull));
                const auto elems =
                    static_cast<uint32_t>(number("elements", words[4], 0xFFFFFFFFull));
                try {
                    cur->addView(words[1], parent, off, elems);
                } catch (const std::invalid_argument& e) {
                    fail(fmt::format("expected a view inside its parent: {}", e.what()));
                }
                continue;
            }
            if (w0 == ".group") {
                if (words.size() != 3)
                    fail(fmt::format("expected '.group <id> <core>,<core>,...', got '{}'", raw));
                uint16_t id = static_cast<uint16_t>(number("group", words[1], 0xFFFF));
                std::vector<uint32_t> members;
                std::stringstream ss(words[2]);
                std::string item;
                while (std::getline(ss, item, ','))
                    members.push_back(
                        static_cast<uint32_t>(number("group member", item, 0xFFFFFFFEull)));
                if (cur->group(id))
                    fail(fmt::format("expected a new group id, got {} (declared before)", id));
                cur->addGroup(id, members);
                continue;
            }
            if (w0 == ".stream") {
                // Streams are numbered in order: `.stream 1` starts the core's second queue.
                if (words.size() != 2)
                    fail(fmt::format("expected '.stream <index>', got '{}'", raw));
                const uint64_t s = number("stream", words[1], 255);
                if (s != cur->streams())
                    fail(
                        fmt::format("expected '.stream {}' (streams are numbered in order; stream "
                                    "0 is the code before the first .stream), got '.stream {}'",
                                    cur->streams(), s));
                cur->beginStream();
                continue;
            }
            if (w0[0] == '.')
                fail(fmt::format("expected a directive (.core, .buffer, .group, .stream), got '{}'",
                                 w0));
            const OpDef* def = findOp(w0);
            if (!def)
                fail(fmt::format(
                    "expected an opcode (gemm, vadd, send, recv, dma.load, ...), got '{}'", w0));
            Instruction ins;
            ins.op = def->op;
            std::vector<bool> seen(def->keys.size(), false);
            bool dtype_given = false;
            for (size_t w = 1; w < words.size(); ++w) {
                const std::string& tok = words[w];
                auto eq = tok.find('=');
                std::string key = eq == std::string::npos ? tok : tok.substr(0, eq);
                std::string val = eq == std::string::npos ? "" : tok.substr(eq + 1);
                size_t ki = 0;
                while (ki < def->keys.size() && key != def->keys[ki].key) ++ki;
                if (ki == def->keys.size()) {
                    std::string allowed;
                    for (const auto& k : def->keys)
                        allowed += std::string(allowed.empty() ? "" : ", ") + k.key;
                    fail(fmt::format("expected one of the keys of '{}' ({}), got '{}'", w0,
                                     allowed.empty() ? "none" : allowed, key));
                }
                if (seen[ki]) fail(fmt::format("expected each key once, got '{}' twice", key));
                seen[ki] = true;
                const Field f = def->keys[ki].field;
                if (f == Field::Flag) {
                    if (eq != std::string::npos)
                        fail(fmt::format("expected the flag '{}' without a value, got '{}'", key,
                                         tok));
                    ins.flags |= def->keys[ki].flag;
                    continue;
                }
                if (eq == std::string::npos || val.empty())
                    fail(fmt::format("expected '{}=<value>', got '{}'", key, tok));
                switch (f) {
                    case Field::A:
                    case Field::B:
                    case Field::C: {
                        uint16_t b = cur->findBuffer(val);
                        if (b == kNoBuf)
                            fail(fmt::format("expected a declared buffer for '{}', got '{}'", key,
                                             val));
                        (f == Field::A ? ins.a : f == Field::B ? ins.b : ins.c) = b;
                        break;
                    }
                    case Field::RBuf:
                        remote.push_back({cur_core, cur->code().size(), val, line_});
                        break;
                    case Field::M:
                        ins.m = static_cast<uint32_t>(number(key, val, 0xFFFFFFFFull));
                        break;
                    case Field::K:
                        ins.k = static_cast<uint32_t>(number(key, val, 0xFFFFFFFFull));
                        break;
                    case Field::N:
                        ins.n = static_cast<uint32_t>(number(key, val, 0xFFFFFFFFull));
                        break;
                    case Field::DType:
                        if (!parseDType(val, ins.dtype))
                            fail(fmt::format(
                                "expected a dtype (fp32, fp16, bf16, int8) for 'dtype', got '{}'",
                                val));
                        dtype_given = true;
                        break;
                    case Field::Peer:
                        ins.peer = static_cast<uint32_t>(number(key, val, 0xFFFFFFFEull));
                        break;
                    case Field::Peer2:
                        ins.peer2 = static_cast<uint32_t>(number(key, val, 0xFFFFFFFEull));
                        break;
                    case Field::Route:
                        ins.route = static_cast<uint32_t>(number(key, val, 0xFFFFFFFEull));
                        break;
                    case Field::Route2:
                        ins.route2 = static_cast<uint32_t>(number(key, val, 0xFFFFFFFEull));
                        break;
                    case Field::Bytes:
                        ins.bytes = number(key, val, ~0ull);
                        break;
                    case Field::Addr:
                        ins.addr = number(key, val, ~0ull);
                        break;
                    case Field::Event:
                        ins.event = static_cast<uint16_t>(number(key, val, 0xFFFF));
                        // An optional event (DMA) asks to raise it; wait's required one names
                        // what to wait for.
                        ins.raise = !def->keys[ki].required;
                        break;
                    case Field::Group:
                        ins.group = static_cast<uint16_t>(number(key, val, 0xFFFF));
                        break;
                    case Field::Imm: {
                        char* end = nullptr;
                        float x = std::strtof(val.c_str(), &end);
                        if (*end || !std::isfinite(x))
                            fail(fmt::format("expected a number for '{}', got '{}'", key, val));
                        ins.imm = x;
                        break;
                    }
                    case Field::Flag:
                        break;
                }
            }
            for (size_t ki = 0; ki < def->keys.size(); ++ki)
                if (def->keys[ki].required && !seen[ki])
                    fail(fmt::format("expected key '{}' for '{}'", def->keys[ki].key, w0));
            if (ins.op == Opcode::Wait && ins.n == 0) ins.n = 1;
            if (!dtype_given && (ins.op == Opcode::Gemm || ins.op == Opcode::Gemv))
                ins.dtype = cur->buffer(ins.a).dtype;
            cur->add(ins);
            lines_[cur_core].push_back(line_);
        }
        if (!any)  // at the end of the text (line 1 of an empty one)
            throw ParseError(file_, std::max(line_, 1),
                             "expected at least one '.core <id>' section, got none");
        Firmware fw(cores ? cores : max_core + 1);
        for (auto& [c, p] : progs) fw.program(c) = std::move(p);
        for (const auto& r : remote) {
            Instruction ins = fw.program(r.core).at(static_cast<uint32_t>(r.pc));
            line_ = r.line;
            if (ins.peer >= fw.cores())
                fail(fmt::format("expected a core id < {}, got {}", fw.cores(), ins.peer));
            uint16_t b = fw.program(ins.peer).findBuffer(r.name);
            if (b == kNoBuf)
                fail(fmt::format("expected a buffer declared on core {}, got '{}'", ins.peer,
                                 r.name));
            ins.rbuf = b;
            fw.program(r.core).set(static_cast<uint32_t>(r.pc), ins);
        }
        try {
            fw.validate();
        } catch (const ValidationError& e) {
            // Point at the instruction's line, or at its core's `.core` line, or (a rule of the
            // whole firmware) at the first `.core` line.
            int at = 1;
            if (core_line_.count(e.core())) {
                const auto& l = lines_[e.core()];
                at = e.pc() < l.size() ? l[e.pc()] : core_line_[e.core()];
            } else if (!core_line_.empty()) {
                at = std::numeric_limits<int>::max();
                for (const auto& [c, l] : core_line_) at = std::min(at, l);
            }
            throw ParseError(file_, at, e.what());
        }
        return fw;
    }

  private:
    std::string file_;
    int line_ = 0;
    std::map<uint32_t, std::vector<int>> lines_;  // line of every instruction, per core
    std::map<uint32_t, int> core_line_;           // line of every `.core`
};

std::string fmtFloat(float f) {
    return fmt::format("{}", f);
}

}  // namespace

std::string ProgramText::dump(const Firmware& fw) {
    std::string out = "# wsc firmware text (docs/ISA.md)\n";
    for (uint32_t c = 0; c < fw.cores(); ++c) {
        const Program& p = fw.program(c);
        // An empty program is left out, except the last: it keeps the core count (and a text
        // of only empty programs is still firmware that parses back).
        if (p.empty() && p.buffers().empty() && p.groups().empty() && c + 1 < fw.cores()) continue;
        out += fmt::format(".core {}\n", c);
        for (const auto& b : p.buffers())
            out += b.isView()
                       ? fmt::format(".view {} {} {} {}\n", b.name, p.buffer(b.view_of).name,
                                     b.view_offset, b.elems)
                       : fmt::format(".buffer {} {} {}\n", b.name, b.elems, dtypeName(b.dtype));
        for (const auto& g : p.groups()) {
            std::string m;
            for (uint32_t x : g.members) m += (m.empty() ? "" : ",") + std::to_string(x);
            out += fmt::format(".group {} {}\n", g.id, m);
        }
        int indent = 0;
        uint32_t stream = 0;
        for (size_t pc = 0; pc < p.code().size(); ++pc) {
            const Instruction& i = p.code()[pc];
            while (stream + 1 < p.streams() && pc == p.streamBegin(stream + 1)) {
                out += fmt::format(".stream {}\n", ++stream);  // (empty streams in a row)
                indent = 0;
            }
            if (i.op == Opcode::EndLoop) --indent;
            std::string line(2 * std::max(indent, 0), ' ');
            line += opcodeName(i.op);
            uint8_t shown = 0;  // flag bits the text carries
            for (const KeyDef& k : opDef(i.op).keys) {
                std::string v;
                switch (k.field) {
                    case Field::A:
                        v = i.a == kNoBuf ? "" : p.buffer(i.a).name;
                        break;
                    case Field::B:
                        v = i.b == kNoBuf ? "" : p.buffer(i.b).name;
                        break;
                    case Field::C:
                        v = i.c == kNoBuf ? "" : p.buffer(i.c).name;
                        break;
                    case Field::RBuf:
                        v = i.peer < fw.cores() && i.rbuf < fw.program(i.peer).buffers().size()
                                ? fw.program(i.peer).buffer(i.rbuf).name
                                : "";
                        break;
                    case Field::M:
                        v = std::to_string(i.m);
                        break;
                    case Field::K:
                        v = std::to_string(i.k);
                        break;
                    case Field::N:
                        v = std::to_string(i.n);
                        break;
                    case Field::DType:
                        v = dtypeName(i.dtype);
                        break;
                    case Field::Flag:
                        if (i.flags & k.flag) line += fmt::format(" {}", k.key);
                        shown |= k.flag;
                        continue;
                    case Field::Peer:
                        v = i.peer == kNoCore ? "" : std::to_string(i.peer);
                        break;
                    case Field::Peer2:
                        v = i.peer2 == kNoCore ? "" : std::to_string(i.peer2);
                        break;
                    case Field::Route:
                        v = i.route == kNoRouteId ? "" : std::to_string(i.route);
                        break;
                    case Field::Route2:
                        v = i.route2 == kNoRouteId ? "" : std::to_string(i.route2);
                        break;
                    case Field::Bytes:
                        v = std::to_string(i.bytes);
                        break;
                    case Field::Addr:
                        v = fmt::format("0x{:x}", i.addr);
                        break;
                    case Field::Event:
                        v = i.raise || k.required ? std::to_string(i.event) : "";
                        break;
                    case Field::Group:
                        v = std::to_string(i.group);
                        break;
                    case Field::Imm:
                        v = fmtFloat(i.imm);
                        break;
                }
                if (!v.empty()) line += fmt::format(" {}={}", k.key, v);
            }
            // Dropping a flag would load back as different firmware: refuse instead.
            if (i.flags & ~shown)
                throw std::invalid_argument(
                    fmt::format("core {}: instruction {} ({}): flags 0x{:x} have no text form", c,
                                pc, opcodeName(i.op), i.flags & ~shown));
            out += line + "\n";
            if (i.op == Opcode::Loop) ++indent;
        }
        while (stream + 1 < p.streams()) out += fmt::format(".stream {}\n", ++stream);
    }
    return out;
}

Firmware ProgramText::parse(const std::string& text, const std::string& file, uint32_t cores) {
    return Parser(file).run(text, cores);
}

Firmware ProgramText::loadFile(const std::string& path, uint32_t cores) {
    // A regular file of bounded size (noc::InputFile): a FIFO or /dev/zero is refused.
    std::string text;
    try {
        text = noc::InputFile::read(path, kMaxFileBytes);
    } catch (const noc::InputFile::Error& e) {
        throw ParseError(path, 0, std::string("expected a readable firmware file: ") + e.what());
    }
    return parse(text, path, cores);
}

void ProgramText::saveFile(const Firmware& fw, const std::string& path) {
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write " + path);
    f << dump(fw);
}

}  // namespace wsc::firmware
