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

// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so that
// `path` either keeps its old content or gets all of the new one. Throws std::runtime_error
// naming `path` and the reason (directory missing or not writable, disk full).
void write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace skograph::viz
