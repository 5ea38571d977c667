#pragma once
// Turns the `noc:` section of a hardware YAML into noc::NocParams: units converted to cycles and
// bytes at the NoC clock, every field filled, impossible networks rejected with the position and
// key (see docs/CONFIG.md for every key, its unit, default and range).
#include "hw/YamlReader.h"
#include "noc/NocParams.h"

namespace wsc::hw {

class NocConfigLoader {
  public:
    static noc::NocParams load(const YamlReader& nocNode);
    // With a topology from the wafer: section (WaferConfigLoader): noc.topology must be absent.
    static noc::NocParams load(const YamlReader& nocNode, const noc::TopologyParams* fromWafer);

  private:
    static void loadTopology(const YamlReader& topo, noc::NocParams& p);
    static void loadRouter(const YamlReader& nocNode, noc::NocParams& p);
    // `defaults` are used for absent keys; `required` keys (latency, width) have no default.
    static noc::LinkParams loadLink(const YamlReader& link, const noc::NocParams& p,
                                    const noc::LinkParams& defaults, bool required);
    static void loadD2D(const YamlReader& nocNode, noc::NocParams& p);
    // w2w: the links between wafers (required with wafer.wafers, refused without).
    static void loadW2W(const YamlReader& nocNode, noc::NocParams& p);
    // One D2D link class section (d2d:, w2w:): bandwidth, latency, serdes, FEC, energy, BER,
    // clock; checked as noc::Link builds it.
    static noc::D2DParams loadLinkClass(const YamlReader& section, const noc::NocParams& p);
};

}  // namespace wsc::hw
