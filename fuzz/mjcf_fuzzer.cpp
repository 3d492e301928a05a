// libFuzzer target: skograph dynamics on mjcf files (fuzz/contract.hpp).
#include "fuzz/contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const skograph::fuzz::Target target{".xml", {"dynamics", "{}", "--json"}};
  return skograph::fuzz::run_and_check(target, data, size);
}
