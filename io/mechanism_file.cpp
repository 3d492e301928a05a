#include "skograph/io/mechanism_file.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "skograph/graph/digraph.hpp"
#include "skograph/graph/text_input.hpp"
#include "skograph/io/mjcf_reader.hpp"
#include "skograph/io/sdf_reader.hpp"
#include "skograph/io/urdf_reader.hpp"
#include "skograph/io/yaml_reader.hpp"

namespace skograph {

namespace {
std::string lowercase_extension(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension;
}

// Names must be UTF-8 text: the file's bytes are (graph/text_input.hpp), but XML character
// references such as &#xD800; or &#0; decode to what JSON output cannot hold.
void check_names_are_text(const Mechanism& mechanism, const std::string& path) {
  const auto check = [&](const char* what, const std::string& name) {
    if (!is_text(name))
      throw InputError(path, 0,
                       std::string(what) + " name '" + printable(name) +
                           "' is not UTF-8 text (a character reference to NUL or a surrogate?)");
  };
  check("model", mechanism.name);
  for (const Link& link : mechanism.links) check("link", link.name);
  for (const Joint& joint : mechanism.joints) check("joint", joint.name);
  for (const LoopClosure& loop : mechanism.loops) check("loop", loop.name);
  for (const Coupling& coupling : mechanism.couplings) check("coupling", coupling.name);
  for (const Frame& frame : mechanism.frames) check("frame", frame.name);
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
  Mechanism mechanism;
  switch (model_format(path)) {
    case ModelFormat::kUrdf:
      mechanism = read_urdf_file(path, options);
      break;
    case ModelFormat::kYaml:
      mechanism = read_yaml_file(path, options);
      break;
    case ModelFormat::kMjcf:
      mechanism = read_mjcf_file(path, options);
      break;
    case ModelFormat::kSdf:
      mechanism = read_sdf_file(path, options);
      break;
    case ModelFormat::kNone:
      read_file_bytes(path);  // a directory or a device says so before its missing extension
      throw InputError(path, 0,
                       "unknown model file type '" + lowercase_extension(path) +
                           "' (expected .urdf, .yaml, .yml, .xml, .mjcf or .sdf)");
  }
  check_names_are_text(mechanism, path);
  return mechanism;
}

}  // namespace skograph
