// Output formats by name and extension, and writing through a temporary file and a rename: a
// failed write leaves neither a partial target nor a temporary behind.
#include "viz/image_format.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace skograph::viz {
namespace {

std::filesystem::path scratch() {
  const auto dir =
      std::filesystem::temp_directory_path() / ("skograph_viz_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(ImageFormat, NamesAndExtensions) {
  EXPECT_EQ(parse_image_format("svg"), ImageFormat::kSvg);
  EXPECT_EQ(parse_image_format("pdf"), ImageFormat::kPdf);
  EXPECT_FALSE(parse_image_format("SVG"));
  EXPECT_FALSE(parse_image_format("jpeg"));
  EXPECT_EQ(image_format_of_path("out/a.PNG"), ImageFormat::kPng);
  EXPECT_EQ(image_format_of_path("a.gv"), ImageFormat::kDot);
  EXPECT_EQ(image_format_of_path("a.dot"), ImageFormat::kDot);
  EXPECT_FALSE(image_format_of_path("picture"));
  EXPECT_FALSE(image_format_of_path("picture.jpg"));
}

TEST(ImageFormat, AtomicWriteReplacesTheWholeFile) {
  const auto path = scratch() / "picture.svg";
  write_file_atomically(path.string(), std::string(100000, 'a'));
  write_file_atomically(path.string(), "short");
  EXPECT_EQ(slurp(path), "short");
  // Nothing but the target in the folder: the temporary was renamed.
  int files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(scratch())) ++files;
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(scratch());
}

TEST(ImageFormat, AtomicWriteIntoAMissingOrNonDirectoryThrowsNamingThePath) {
  const auto file = scratch() / "plain_file";
  std::ofstream(file) << "x";
  for (const std::string& target :
       {(scratch() / "missing" / "a.svg").string(), (file / "a.svg").string()}) {
    try {
      write_file_atomically(target, "data");
      ADD_FAILURE() << target;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(target), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(slurp(file), "x");
  std::filesystem::remove_all(scratch());
}

}  // namespace
}  // namespace skograph::viz
