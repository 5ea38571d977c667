// The lockstep mismatch report: cycle, router, port, VC and both sides' flits, also when one side
// did something the other did not.
#include <catch2/catch.hpp>

#include "RouterEventLog.h"
#include "testbench/tests/noc/NocTestUtil.h"

using namespace wsc;

TEST_CASE("lockstep report names the cycle router port VC and both flits", "[rtl][lockstep]") {
    noc::Network net(test::meshParams(2, 2), 1);
    const uint32_t slot = net.enqueuePacket(0, 3, noc::kNoRoute, 2, 0, false);
    noc::Flit head{slot, 0, noc::Flit::kHead, 1};
    noc::Flit other = head;
    other.vc = 2;

    test::RouterEventLog cpp, rtl;
    cpp.onFlitOut(7, 1, 3, head);
    rtl.onFlitOut(7, 1, 3, head);
    CHECK(test::firstMismatch(net, cpp, net, rtl).empty());

    rtl.events.clear();
    rtl.onFlitOut(7, 1, 3, other);
    std::string d = test::firstMismatch(net, cpp, net, rtl);
    CHECK_THAT(d, Catch::Contains("C++ router: cycle 7 router r(1,0) flit out on port 3 (S) VC 1"));
    CHECK_THAT(d, Catch::Contains("RTL router: cycle 7 router r(1,0) flit out on port 3 (S) VC 2"));
    CHECK_THAT(d, Catch::Contains("flit 1/2 head"));

    rtl.events.clear();
    cpp.onCreditOut(7, 1, 1, 0);
    rtl.onFlitOut(7, 1, 3, head);
    d = test::firstMismatch(net, cpp, net, rtl);
    CHECK_THAT(
        d, Catch::Contains("C++ router: cycle 7 router r(1,0) credit on input port 1 (W) VC 0"));
    CHECK_THAT(d, Catch::Contains("RTL router did:"));
}
