#include "testbench/FuzzTargets.h"

#include <fmt/format.h>

#include "firmware/ParseError.h"
#include "firmware/ProgramText.h"
#include "firmware/model/LayerGraph.h"
#include "hw/ConfigError.h"
#include "hw/HardwareLoader.h"
#include "hw/ModelConfigLoader.h"
#include "hw/ScenarioLoader.h"
#include "hw/YamlReader.h"
#include "testbench/Preflight.h"

namespace wsc::tb {

namespace {

// A refusal must say where: the file always, and a line wherever the text has one to point at.
void checkLocated(const hw::ConfigError& e, const std::string& file) {
    if (e.file() != file)
        throw ContractViolation(fmt::format("refusal not naming the file: {}", e.what()));
    if (e.line() <= 0) throw ContractViolation(fmt::format("refusal without a line: {}", e.what()));
}

// Runs `fn`; a located ConfigError is the contract's refusal, any other exception a finding.
template <typename Fn>
void refusedOrAccepted(const std::string& file, Fn&& fn) {
    try {
        fn();
    } catch (const hw::ConfigError& e) {
        checkLocated(e, file);
    } catch (const ContractViolation&) {
        throw;
    } catch (const std::exception& e) {
        throw ContractViolation(fmt::format("not a located refusal: {}", e.what()));
    }
}

}  // namespace

void FuzzTargets::yamlConfig(const std::string& text) {
    const std::string file = "fuzz.yaml";
    refusedOrAccepted(file, [&] {
        // As the CLI's loadAny: a scenario when it has one, else a hardware file.
        const hw::YamlReader root = hw::YamlReader::loadString(text, file);
        hw::ScenarioConfig sc;
        if (root.has("scenario")) {
            sc = hw::ScenarioLoader::load(root);
        } else {
            sc.name = file;
            sc.setHardware(hw::HardwareLoader::load(root));
        }
        Preflight::check(sc, {}, RunBudget{kBudgetBytes, "allowed to the fuzz target"});
    });
}

void FuzzTargets::firmwareText(const std::string& text) {
    const std::string file = "fuzz.fw";
    firmware::Firmware fw;
    try {
        fw = firmware::ProgramText::parse(text, file);
    } catch (const firmware::ParseError& e) {
        if (e.file() != file || e.line() <= 0)
            throw ContractViolation(fmt::format("parse error not located: {}", e.what()));
        return;
    } catch (const std::exception& e) {
        throw ContractViolation(fmt::format("not a located refusal: {}", e.what()));
    }
    // Accepted: the canonical text is a fixed point of parse and dump.
    try {
        const std::string once = firmware::ProgramText::dump(fw);
        const std::string twice =
            firmware::ProgramText::dump(firmware::ProgramText::parse(once, "dump.fw"));
        if (once != twice)
            throw ContractViolation("dump(parse(dump(fw))) differs from dump(fw):\n" + once +
                                    "\n---\n" + twice);
    } catch (const ContractViolation&) {
        throw;
    } catch (const std::exception& e) {
        throw ContractViolation(fmt::format("accepted firmware does not round-trip: {}", e.what()));
    }
}

void FuzzTargets::modelConfig(const std::string& text) {
    const std::string file = "fuzz.json";
    namespace fm = firmware::model;
    fm::ModelConfig m;
    try {
        m = hw::ModelConfigLoader::loadString(text, file);
    } catch (const hw::ConfigError& e) {
        checkLocated(e, file);
        return;
    } catch (const std::exception& e) {
        throw ContractViolation(fmt::format("not a located refusal: {}", e.what()));
    }
    try {
        const fm::LayerGraph g = fm::LayerGraph::build(m, fm::GraphShape{});
        (void)g.params();
    } catch (const std::exception& e) {
        throw ContractViolation(
            fmt::format("an accepted model does not build its layer graph: {}", e.what()));
    }
}

}  // namespace wsc::tb
