#include "skograph/viz/image_format.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace skograph::viz {

const char* image_format_name(ImageFormat format) {
  switch (format) {
    case ImageFormat::kSvg:
      return "svg";
    case ImageFormat::kPng:
      return "png";
    case ImageFormat::kPdf:
      return "pdf";
    case ImageFormat::kDot:
      return "dot";
  }
  return "?";
}

std::optional<ImageFormat> parse_image_format(const std::string& name) {
  for (ImageFormat format :
       {ImageFormat::kSvg, ImageFormat::kPng, ImageFormat::kPdf, ImageFormat::kDot})
    if (name == image_format_name(format)) return format;
  return std::nullopt;
}

std::optional<ImageFormat> image_format_of_path(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".gv") return ImageFormat::kDot;
  if (extension.size() < 2) return std::nullopt;
  return parse_image_format(extension.substr(1));
}

}  // namespace skograph::viz
