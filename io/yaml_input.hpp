// What the YAML readers share (the native format, io/yaml_reader.cpp; the loop files,
// io/loop_file.cpp): the document loaded with its nesting bounded, and typed values read out of
// nodes, every problem naming the file and the node's line. Not installed.
#pragma once

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <Eigen/Geometry>
#include <set>
#include <string>

#include "mechanism_checks.hpp"
#include "skograph/graph/digraph.hpp"
#include "skograph/graph/text_input.hpp"

namespace skograph::io {

// " at line 2, column 8" of a yaml-cpp mark ("" when it has none).
inline std::string yaml_place(const YAML::Mark& mark) {
  if (mark.is_null()) return "";
  return " at line " + std::to_string(mark.line + 1) + ", column " +
         std::to_string(mark.column + 1);
}

// The document of `text` (yaml-cpp's depth guard bounds the nesting): InputError at the line of a
// malformed document.
inline YAML::Node load_yaml(const std::string& text, const std::string& source) {
  try {
    return YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    throw InputError(source, e.mark.is_null() ? 0 : e.mark.line + 1,
                     "malformed YAML: nested deeper than " + std::to_string(e.depth()) + " levels");
  } catch (const YAML::ParserException& e) {
    throw InputError(source, e.mark.is_null() ? 0 : e.mark.line + 1,
                     "malformed YAML: " + e.msg + yaml_place(e.mark));
  }
}

// Reads typed values out of YAML nodes; every problem names the file and the node's line.
class YamlReader {
 public:
  explicit YamlReader(std::string source) : source_(std::move(source)) {}

  SourceLocation at(const YAML::Node& node) const {
    const YAML::Mark mark = node.Mark();
    return {source_, mark.is_null() ? 0 : mark.line + 1};
  }
  const std::string& source() const { return source_; }

  void require_map(const YAML::Node& node, const std::string& what) const {
    if (!node.IsMap()) fail(at(node), what + " must be a mapping");
  }

  // Rejects keys outside `allowed` and requires the keys in `required`.
  void check_keys(const YAML::Node& node, const std::string& what,
                  const std::set<std::string>& allowed,
                  const std::set<std::string>& required = {}) const {
    require_map(node, what);
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) fail(at(entry.first), "a key in " + what + " must be a name");
      const std::string key = entry.first.Scalar();
      if (!allowed.count(key)) {
        std::string list;
        for (const std::string& k : allowed) list += (list.empty() ? "" : ", ") + k;
        fail(at(entry.first), "unknown key '" + key + "' in " + what + " (expected " + list + ")");
      }
    }
    for (const std::string& key : required)
      if (!node[key]) fail(at(node), what + " has no '" + key + "'");
  }

  std::string text(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) fail(at(node), what + " must be a single value");
    // Escapes can spell what the file's bytes cannot ("\0", "\ud800"): names stay UTF-8 text.
    if (!is_text(node.Scalar()))
      fail(at(node),
           what + " is not UTF-8 text (an escape decodes to a NUL byte or a lone surrogate)");
    return node.Scalar();
  }

  double number(const YAML::Node& node, const std::string& what) const {
    double value = 0.0;
    if (!node.IsScalar() || !YAML::convert<double>::decode(node, value))
      fail(at(node), what + " must be a number");
    io::require_finite(at(node), what, value);
    return value;
  }

  Eigen::Vector3d vector3(const YAML::Node& node, const std::string& what) const {
    if (!node.IsSequence() || node.size() != 3)
      fail(at(node), what + " must be a list of 3 numbers");
    return {number(node[0], what), number(node[1], what), number(node[2], what)};
  }

  // {xyz: [...], rpy: [...]}, both optional (zero).
  Eigen::Isometry3d frame(const YAML::Node& node, const std::string& what) const {
    check_keys(node, what, {"xyz", "rpy"});
    const Eigen::Vector3d xyz =
        node["xyz"] ? vector3(node["xyz"], what + " xyz") : Eigen::Vector3d::Zero();
    const Eigen::Vector3d rpy =
        node["rpy"] ? vector3(node["rpy"], what + " rpy") : Eigen::Vector3d::Zero();
    return io::frame_from_xyz_rpy(xyz, rpy);
  }

 private:
  std::string source_;
};

}  // namespace skograph::io
