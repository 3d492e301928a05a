// libFuzzer target: skograph linearize --hold of examples/models/humanoid.yaml (a floating base,
// spherical joints) on state JSON files: the derivatives, the tangent, the hold and the
// eigenvalues on any state (fuzz/contract.hpp).
#include "fuzz/contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const skograph::fuzz::Target target{
      ".json",
      {"linearize", SKOGRAPH_SOURCE_DIR "/examples/models/humanoid.yaml", "--state", "{}", "--hold",
       "--json"}};
  return skograph::fuzz::run_and_check(target, data, size);
}
