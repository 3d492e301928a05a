// libFuzzer target: skograph dynamics of examples/models/fourbar_chain.yaml on state JSON files
// (fuzz/contract.hpp).
#include "fuzz/contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const skograph::fuzz::Target target{
      ".json",
      {"dynamics", SKOGRAPH_SOURCE_DIR "/examples/models/fourbar_chain.yaml", "--state", "{}",
       "--json"}};
  return skograph::fuzz::run_and_check(target, data, size);
}
