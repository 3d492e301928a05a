// Reading `skograph view`'s pages back in the CLI tests: the page's bytes and the scene JSON it
// embeds.
#pragma once

#include <Eigen/Geometry>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

namespace view_test {

inline std::string page_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The scene embedded in the page (null when there is none).
inline nlohmann::json scene_of(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"scene\">";
  const std::size_t start = page.find(open);
  if (start == std::string::npos) return nullptr;
  const std::size_t end = page.find("</script>", start);
  return nlohmann::json::parse(page.substr(start + open.size(), end - start - open.size()));
}

inline Eigen::Vector3d vector3(const nlohmann::json& value) {
  return {value[0].get<double>(), value[1].get<double>(), value[2].get<double>()};
}

// A pose the scene writes as [x, y, z, qx, qy, qz, qw], or as a position and an [x, y, z, w]
// quaternion.
inline Eigen::Isometry3d pose_of(const nlohmann::json& position, const nlohmann::json& quaternion) {
  Eigen::Isometry3d result = Eigen::Isometry3d::Identity();
  result.translation() = vector3(position);
  result.linear() = Eigen::Quaterniond(quaternion[3].get<double>(), quaternion[0].get<double>(),
                                       quaternion[1].get<double>(), quaternion[2].get<double>())
                        .normalized()
                        .toRotationMatrix();
  return result;
}
inline Eigen::Isometry3d pose_of(const nlohmann::json& pose) {
  return pose_of(nlohmann::json::array({pose[0], pose[1], pose[2]}),
                 nlohmann::json::array({pose[3], pose[4], pose[5], pose[6]}));
}

}  // namespace view_test
