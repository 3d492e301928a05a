#include "io/mechanism_file.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "graph/digraph.hpp"
#include "io/urdf_reader.hpp"
#include "io/yaml_reader.hpp"

namespace skograph {

namespace {
std::string lowercase_extension(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension;
}
}  // namespace

bool is_mechanism_file(const std::string& path) {
  const std::string extension = lowercase_extension(path);
  return extension == ".urdf" || extension == ".yaml" || extension == ".yml";
}

Mechanism read_mechanism_file(const std::string& path) {
  const std::string extension = lowercase_extension(path);
  if (extension == ".urdf") return read_urdf_file(path);
  if (extension == ".yaml" || extension == ".yml") return read_yaml_file(path);
  throw InputError(path, 0,
                   "unknown model file type '" + extension + "' (expected .urdf, .yaml or .yml)");
}

}  // namespace skograph
