#include "io/mechanism_file.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "graph/digraph.hpp"
#include "io/mjcf_reader.hpp"
#include "io/sdf_reader.hpp"
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

ModelFormat model_format(const std::string& path) {
  const std::string extension = lowercase_extension(path);
  if (extension == ".urdf") return ModelFormat::kUrdf;
  if (extension == ".yaml" || extension == ".yml") return ModelFormat::kYaml;
  if (extension == ".xml" || extension == ".mjcf") return ModelFormat::kMjcf;
  if (extension == ".sdf") return ModelFormat::kSdf;
  return ModelFormat::kNone;
}

bool is_mechanism_file(const std::string& path) {
  return model_format(path) != ModelFormat::kNone;
}

Mechanism read_mechanism_file(const std::string& path, const ReadOptions& options) {
  switch (model_format(path)) {
    case ModelFormat::kUrdf:
      return read_urdf_file(path, options);
    case ModelFormat::kYaml:
      return read_yaml_file(path, options);
    case ModelFormat::kMjcf:
      return read_mjcf_file(path, options);
    case ModelFormat::kSdf:
      return read_sdf_file(path, options);
    case ModelFormat::kNone:
      break;
  }
  throw InputError(path, 0,
                   "unknown model file type '" + lowercase_extension(path) +
                       "' (expected .urdf, .yaml, .yml, .xml, .mjcf or .sdf)");
}

}  // namespace skograph
