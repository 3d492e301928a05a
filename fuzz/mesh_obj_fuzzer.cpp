// libFuzzer target: skograph view of a one-link URDF whose visual is a mesh, the input, as a
// .obj file (io/mesh_file.hpp; fuzz/contract.hpp).
#include "fuzz/contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const skograph::fuzz::Target target{
      ".obj",
      {"view", "{folder}/mesh_model.urdf", "--out", "{folder}/view.html"},
      {{"mesh_model.urdf",
        "<robot name=\"mesh\"><link name=\"body\"><inertial><mass value=\"1\"/><inertia "
        "ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial><visual>"
        "<geometry><mesh filename=\"input.obj\"/></geometry></visual></link></robot>"}}};
  return skograph::fuzz::run_and_check(target, data, size);
}
