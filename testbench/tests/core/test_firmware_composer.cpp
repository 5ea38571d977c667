// FirmwareComposer: a plan's programs appended after another's, its buffers declared under a
// prefix or bound to the composed program's (views follow their parent), and what it refuses.
#include <catch2/catch.hpp>

#include "firmware/FirmwareComposer.h"
#include "firmware/ProgramText.h"

using namespace wsc;
using Catch::Matchers::Contains;

namespace {

firmware::Firmware parse(const std::string& text) {
    return firmware::ProgramText::parse(text, "compose.fw", 2);
}

}  // namespace

TEST_CASE("compose appends programs with prefixed and bound buffers", "[core][compose]") {
    firmware::Firmware dst = parse(R"(
.core 0
.buffer h 8
vscale a=h c=h n=8 s=2
)");
    const firmware::Firmware src = parse(R"(
.core 0
.buffer x 8
.buffer y 8
.view y1 y 4 4
vadd a=x b=x c=y n=8
vcopy a=y1 c=x n=4
.core 1
.buffer z 2
vcopy a=z c=z n=2
)");
    firmware::FirmwareComposer::append(dst, src, "op.", [](uint32_t, const std::string& n) {
        return n == "x" ? std::string("h") : std::string();
    });
    const firmware::Program& p = dst.program(0);
    REQUIRE(p.buffers().size() == 3);  // h, op.y, op.y1 (x is h)
    CHECK(p.buffer(1).name == "op.y");
    CHECK(p.buffer(2).name == "op.y1");
    CHECK(p.buffer(2).view_of == 1);
    CHECK(p.buffer(2).view_offset == 4);
    REQUIRE(p.code().size() == 3);
    const firmware::Instruction add = p.at(1), copy = p.at(2);
    CHECK((add.a == 0 && add.b == 0 && add.c == 1));
    CHECK((copy.a == 2 && copy.c == 0));
    CHECK(dst.program(1).buffer(0).name == "op.z");
    CHECK_NOTHROW(dst.validate());
}

TEST_CASE("compose refuses what it cannot remap", "[core][compose]") {
    const firmware::Firmware two_streams = parse(R"(
.core 0
.buffer x 4
vcopy a=x c=x n=4
.stream 1
vcopy a=x c=x n=4
)");
    firmware::Firmware dst(2);
    CHECK_THROWS_WITH(firmware::FirmwareComposer::append(dst, two_streams, "a."),
                      Contains("several instruction streams"));
    const firmware::Firmware dma = parse(R"(
.core 0
.buffer x 4
dma.load buf=x addr=0 bytes=16
)");
    CHECK_THROWS_WITH(firmware::FirmwareComposer::append(dst, dma, "b."),
                      Contains("uses ids or addresses the composer does not remap"));
    const firmware::Firmware small = parse(R"(
.core 0
.buffer x 8
vcopy a=x c=x n=8
)");
    firmware::Firmware d2 = parse(".core 0\n.buffer h 4\n");
    auto bindX = [](uint32_t, const std::string& n) {
        return n == "x" ? std::string("h") : std::string();
    };
    CHECK_THROWS_WITH(firmware::FirmwareComposer::append(d2, small, "c.", bindX),
                      Contains("binds 'x' (8 x fp32) to 'h' (4 x fp32)"));
    auto bindMissing = [](uint32_t, const std::string&) { return std::string("nope"); };
    CHECK_THROWS_WITH(firmware::FirmwareComposer::append(d2, small, "c.", bindMissing),
                      Contains("which is not declared"));
}
