// Output formats of the pictures and writing them without ever leaving a partial file.
#pragma once

#include <optional>
#include <string>

namespace skograph::viz {

// svg, png and pdf are rendered images; dot is the Graphviz text skograph generates (diagrams
// only).
enum class ImageFormat { kSvg, kPng, kPdf, kDot };

// "svg", "png", "pdf", "dot".
const char* image_format_name(ImageFormat format);
// The format named `name` (exactly one of the names above), or nullopt.
std::optional<ImageFormat> parse_image_format(const std::string& name);
// The format named by the extension of `path` (".svg", ".png", ".pdf", ".dot", ".gv",
// case-insensitive), or nullopt.
std::optional<ImageFormat> image_format_of_path(const std::string& path);

}  // namespace skograph::viz
