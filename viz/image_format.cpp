#include "viz/image_format.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace skograph::viz {

namespace {
// The process's umask, read once (reading it means setting it; doing that once at first use keeps
// the window small). mkstemp creates files 0600; pictures get the usual 0666 & ~umask.
mode_t process_umask() {
  static const mode_t mask = [] {
    const mode_t old = umask(0);
    umask(old);
    return old;
  }();
  return mask;
}
}  // namespace

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

void write_file_atomically(const std::string& path, const std::string& bytes) {
  const std::filesystem::path target(path);
  const std::filesystem::path directory =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  // mkstemp gives a fresh name in the target's directory, so the rename below stays on one file
  // system (and is atomic there).
  std::string temporary = (directory / ("." + target.filename().string() + ".XXXXXX")).string();
  const int descriptor = mkstemp(temporary.data());
  if (descriptor < 0)
    throw std::runtime_error(path + ": cannot write (" + std::strerror(errno) + ")");
  fchmod(descriptor, 0666 & ~process_umask());
  std::FILE* file = fdopen(descriptor, "wb");
  bool ok = file != nullptr;
  if (!ok) close(descriptor);
  if (ok) ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  const int write_error = errno;
  if (file != nullptr && std::fclose(file) != 0) ok = false;
  if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = ok ? errno : write_error;
    std::remove(temporary.c_str());
    throw std::runtime_error(path + ": cannot write (" + std::strerror(error) + ")");
  }
}

}  // namespace skograph::viz
