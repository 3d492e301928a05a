// libFuzzer target: skograph dynamics of a model whose flexible link reads its modes from the
// input as a modal data file (io/modal_file.hpp; fuzz/contract.hpp). Errors name the model's line
// first, then the modal data file's.
#include "fuzz/contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const skograph::fuzz::Target target{
      ".txt",
      {"dynamics", "{folder}/flexible_model.yaml", "--json"},
      {{"flexible_model.yaml",
        "links:\n"
        "  - name: panel\n"
        "    mass: 12.0\n"
        "    com: [0.9, 0, 0]\n"
        "    inertia: {ixx: 0.4, iyy: 3.3, izz: 3.7}\n"
        "    flexible: {file: input.txt}\n"
        "  - {name: tip, mass: 0.5, inertia: {ixx: 0.001, iyy: 0.001, izz: 0.001}}\n"
        "joints:\n"
        "  - {name: hinge, type: revolute, parent: world, child: panel, axis: [0, 0, 1]}\n"
        "  - {name: tip_mount, type: fixed, parent: panel, child: tip, origin: {xyz: [1.8, 0, "
        "0]}}\n"}},
      "{folder}/flexible_model.yaml"};
  return skograph::fuzz::run_and_check(target, data, size);
}
