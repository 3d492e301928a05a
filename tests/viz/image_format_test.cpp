// Output formats by name and extension.
#include "skograph/viz/image_format.hpp"

#include <gtest/gtest.h>

namespace skograph::viz {
namespace {

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

}  // namespace
}  // namespace skograph::viz
