#pragma once
// A minimal line plot written as standalone SVG (no dependency): several named series of (x, y)
// points on linear axes with ticks, used for latency/throughput curves.
#include <string>
#include <utility>
#include <vector>

namespace wsc::tb {

class SvgPlot {
  public:
    struct Series {
        std::string name;
        std::vector<std::pair<double, double>> points;
        bool line = true;  // false: markers only (a scatter)
    };
    SvgPlot(std::string title, std::string xlabel, std::string ylabel)
        : title_(std::move(title)), xlabel_(std::move(xlabel)), ylabel_(std::move(ylabel)) {}
    void add(Series s) { series_.push_back(std::move(s)); }
    void setYMax(double y) { ymax_ = y; }
    std::string render() const;
    void write(const std::string& path) const;  // throws std::runtime_error naming the file

  private:
    std::string title_, xlabel_, ylabel_;
    std::vector<Series> series_;
    double ymax_ = 0;
};

}  // namespace wsc::tb
