// `skograph analyze MODEL|FILE.dot --out DIR [--size PIXELS] [--state S.json]
// [--max-diagram-nodes N]`: the report (report.txt, report.json, index.html) and every picture in
// DIR (report/analysis.hpp). `skograph demo [--out DIR]` does the same for the built-in geared
// four-bar (default out/demo).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace skograph::cli {

int analyze_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int demo_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace skograph::cli
