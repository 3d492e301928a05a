#include "cli/commands.hpp"

#include <iostream>

namespace skograph::cli {

namespace {
constexpr const char* kUsage =
    "usage: skograph <command> [options]\n"
    "commands:\n"
    "  graph FILE [--json]   analyze a digraph (DOT)\n"
    "  demo                  run the analysis on the built-in example\n"
    "  help                  this text\n";
}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    (args.empty() ? err : out) << kUsage;
    return args.empty() ? kExitBadInput : kExitOk;
  }
  err << "skograph: unknown command '" << args[0] << "' (try 'skograph help')\n";
  return kExitBadInput;
}

int run(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return run(args, std::cout, std::cerr);
}

}  // namespace skograph::cli
