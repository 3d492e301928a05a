// libFuzzer target: skograph dynamics of examples/models/fivebar.urdf closed by loop files of the
// example-parallel-robots kind (--loops, docs/model-formats.md; fuzz/contract.hpp).
#include "fuzz/contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const skograph::fuzz::Target target{
      ".yaml",
      {"dynamics", SKOGRAPH_SOURCE_DIR "/examples/models/fivebar.urdf", "--loops", "{}", "--json"}};
  return skograph::fuzz::run_and_check(target, data, size);
}
