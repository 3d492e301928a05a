// libFuzzer target: skograph dynamics on urdf files (fuzz/contract.hpp).
#include "fuzz/contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const skograph::fuzz::Target target{".urdf", {"dynamics", "{}", "--json"}};
  return skograph::fuzz::run_and_check(target, data, size);
}
