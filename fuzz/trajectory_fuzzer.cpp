// libFuzzer target: skograph view of examples/models/fourbar.yaml playing trajectory CSV files
// (fuzz/contract.hpp).
#include "fuzz/contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const skograph::fuzz::Target target{
      ".csv",
      {"view", SKOGRAPH_SOURCE_DIR "/examples/models/fourbar.yaml", "--trajectory", "{}", "--out",
       "{folder}/view.html"}};
  return skograph::fuzz::run_and_check(target, data, size);
}
