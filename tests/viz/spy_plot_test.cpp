// Spy plots: pixels of a tiny matrix read back from the PNG with cairo (a nonzero entry is dark, a
// zero entry white, a fill entry red), density mode for a matrix bigger than the plot, and valid
// SVG / PDF output.
#include "skograph/viz/spy_plot.hpp"

#include <cairo.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "support/picture_checks.hpp"

namespace skograph::viz {
namespace {

// A pattern from a dense 0/1 table (row-major), built column by column as the definition says.
SparsityPattern pattern_of(const std::vector<std::vector<int>>& table) {
  SparsityPattern pattern;
  pattern.rows = static_cast<int>(table.size());
  pattern.cols = pattern.rows == 0 ? 0 : static_cast<int>(table[0].size());
  pattern.column_start.push_back(0);
  for (int c = 0; c < pattern.cols; ++c) {
    for (int r = 0; r < pattern.rows; ++r)
      if (table[r][c]) pattern.row_index.push_back(r);
    pattern.column_start.push_back(static_cast<int>(pattern.row_index.size()));
  }
  return pattern;
}

struct Rgb {
  int r, g, b;
};

// Decodes a PNG with cairo and reads pixels.
class DecodedPng {
 public:
  explicit DecodedPng(const std::string& bytes) : bytes_(bytes) {
    surface_.reset(cairo_image_surface_create_from_png_stream(read, this));
  }
  bool ok() const { return cairo_surface_status(surface_.get()) == CAIRO_STATUS_SUCCESS; }
  int width() const { return cairo_image_surface_get_width(surface_.get()); }
  int height() const { return cairo_image_surface_get_height(surface_.get()); }
  Rgb pixel(int x, int y) const {
    cairo_surface_flush(surface_.get());
    const unsigned char* data = cairo_image_surface_get_data(surface_.get());
    const int stride = cairo_image_surface_get_stride(surface_.get());
    std::uint32_t value;
    std::memcpy(&value, data + static_cast<std::ptrdiff_t>(y) * stride + 4 * x, 4);
    return {static_cast<int>((value >> 16) & 0xFF), static_cast<int>((value >> 8) & 0xFF),
            static_cast<int>(value & 0xFF)};
  }

 private:
  static cairo_status_t read(void* closure, unsigned char* data, unsigned int length) {
    auto* self = static_cast<DecodedPng*>(closure);
    if (self->position_ + length > self->bytes_.size()) return CAIRO_STATUS_READ_ERROR;
    std::memcpy(data, self->bytes_.data() + self->position_, length);
    self->position_ += length;
    return CAIRO_STATUS_SUCCESS;
  }
  struct Deleter {
    void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
  };
  std::string bytes_;
  size_t position_ = 0;
  std::unique_ptr<cairo_surface_t, Deleter> surface_;
};

bool is_white(Rgb c) {
  return c.r == 255 && c.g == 255 && c.b == 255;
}
bool is_dark(Rgb c) {
  return c.r + c.g + c.b < 3 * 100;
}
bool is_red(Rgb c) {
  return c.r > 150 && c.g < 100 && c.b < 100;
}

// The centre pixel of entry (row, col).
Rgb entry_pixel(const DecodedPng& png, const SpyPlot& plot, int row, int col) {
  return png.pixel(static_cast<int>(plot.left + (col + 0.4) * plot.cell),
                   static_cast<int>(plot.top + (row + 0.4) * plot.cell));
}

TEST(SpyPlot, NonzeroEntriesAreDarkZeroEntriesWhiteFillRed) {
  const std::vector<std::vector<int>> table{{1, 0, 0, 1}, {0, 1, 0, 0}, {0, 1, 1, 0}, {1, 0, 1, 1}};
  const SparsityPattern pattern = pattern_of(table);
  const SparsityPattern fill = pattern_of({{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}});
  SpyPlotOptions options;
  options.title = "tiny";
  const SpyPlot plot = spy_plot(pattern, &fill, {}, options);
  EXPECT_FALSE(plot.density);
  EXPECT_TRUE(plot.notes.empty());
  EXPECT_EQ(plot.cell, options.max_cell);  // 4 rows on 800 pixels: the cell cap applies
  const DecodedPng png(plot.bytes);
  ASSERT_TRUE(png.ok());
  EXPECT_EQ(png.width(), plot.width);
  EXPECT_EQ(png.height(), plot.height);
  EXPECT_EQ(test::png_size(plot.bytes).width, plot.width);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      const Rgb pixel = entry_pixel(png, plot, r, c);
      if (fill.contains(r, c))
        EXPECT_TRUE(is_red(pixel)) << r << "," << c;
      else if (table[r][c])
        EXPECT_TRUE(is_dark(pixel)) << r << "," << c;
      else
        EXPECT_TRUE(is_white(pixel)) << r << "," << c;
    }
}

TEST(SpyPlot, SegmentBoundariesAreLinesAcrossTheMatrix) {
  const SparsityPattern diagonal = pattern_of({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
  SpyPlotOptions options;
  const SpyPlot plot = spy_plot(diagonal, nullptr, {2}, options);
  const DecodedPng png(plot.bytes);
  ASSERT_TRUE(png.ok());
  // Between entries (0, 1) and (0, 2), i.e. at column offset 2, in the white part of row 0.
  const int x = static_cast<int>(plot.left + 2 * plot.cell);
  const Rgb line = png.pixel(x, static_cast<int>(plot.top + 0.5 * plot.cell));
  EXPECT_FALSE(is_white(line));
  EXPECT_GT(line.b, line.r);  // blue
  EXPECT_TRUE(is_white(entry_pixel(png, plot, 0, 1)));
}

// 3000 x 3000 diagonal on 100 pixels: 30 entries per pixel side, so the diagonal pixels hold 30
// nonzeros of 900 entries each and must be shaded; the off-diagonal pixels stay white.
TEST(SpyPlot, AMatrixBiggerThanThePlotIsShadedByDensityAndSaysSo) {
  SparsityPattern diagonal;
  diagonal.rows = diagonal.cols = 3000;
  for (int c = 0; c <= 3000; ++c) diagonal.column_start.push_back(c);
  for (int r = 0; r < 3000; ++r) diagonal.row_index.push_back(r);
  SpyPlotOptions options;
  options.max_pixels = 100;
  const SpyPlot plot = spy_plot(diagonal, nullptr, {}, options);
  EXPECT_TRUE(plot.density);
  ASSERT_EQ(plot.notes.size(), 1u);
  EXPECT_NE(plot.notes[0].find("binned per pixel"), std::string::npos);
  EXPECT_DOUBLE_EQ(plot.cell, 100.0 / 3000.0);
  const DecodedPng png(plot.bytes);
  ASSERT_TRUE(png.ok());
  for (int p = 0; p < 100; p += 7) {
    const Rgb on = png.pixel(static_cast<int>(plot.left) + p, static_cast<int>(plot.top) + p);
    EXPECT_FALSE(is_white(on)) << p;
    EXPECT_LT(on.r + on.g + on.b, 3 * 255 - 60) << p;
    const int q = (p + 50) % 100;
    EXPECT_TRUE(
        is_white(png.pixel(static_cast<int>(plot.left) + q, static_cast<int>(plot.top) + p)))
        << p;
  }
  // A full pixel (every entry nonzero) is darker than a diagonal one.
  SparsityPattern dense;
  dense.rows = dense.cols = 300;
  dense.column_start.push_back(0);
  for (int c = 0; c < 300; ++c) {
    for (int r = 0; r < 300; ++r) dense.row_index.push_back(r);
    dense.column_start.push_back(static_cast<int>(dense.row_index.size()));
  }
  options.max_pixels = 20;
  const SpyPlot dense_plot = spy_plot(dense, nullptr, {}, options);
  const DecodedPng dense_png(dense_plot.bytes);
  const Rgb full =
      dense_png.pixel(static_cast<int>(dense_plot.left) + 3, static_cast<int>(dense_plot.top) + 3);
  const Rgb sparse = png.pixel(static_cast<int>(plot.left) + 3, static_cast<int>(plot.top) + 3);
  EXPECT_LT(full.r + full.g + full.b, sparse.r + sparse.g + sparse.b);
}

TEST(SpyPlot, TooManySegmentBoundariesAreLeftOutWithANote) {
  SparsityPattern diagonal;
  diagonal.rows = diagonal.cols = 400;
  for (int c = 0; c <= 400; ++c) diagonal.column_start.push_back(c);
  for (int r = 0; r < 400; ++r) diagonal.row_index.push_back(r);
  std::vector<int> boundaries;
  for (int b = 1; b < 400; ++b) boundaries.push_back(b);
  SpyPlotOptions options;
  options.max_pixels = 400;
  const SpyPlot plot = spy_plot(diagonal, nullptr, boundaries, options);
  ASSERT_EQ(plot.notes.size(), 1u);
  EXPECT_NE(plot.notes[0].find("segment boundaries left out"), std::string::npos);
}

TEST(SpyPlot, SvgAndPdfAreValid) {
  const SparsityPattern pattern = pattern_of({{1, 1}, {1, 0}});
  const SparsityPattern fill = pattern_of({{0, 1}, {0, 0}});
  SpyPlotOptions options;
  options.title = "M & <friends>";  // text that XML must escape
  options.format = ImageFormat::kSvg;
  EXPECT_EQ(test::xml_problem(spy_plot(pattern, &fill, {1}, options).bytes), "");
  options.format = ImageFormat::kPdf;
  EXPECT_TRUE(test::is_pdf(spy_plot(pattern, &fill, {1}, options).bytes));
  // Density mode in vector formats embeds the binned image.
  options.max_pixels = 16;
  SparsityPattern big;
  big.rows = big.cols = 64;
  for (int c = 0; c <= 64; ++c) big.column_start.push_back(c);
  for (int r = 0; r < 64; ++r) big.row_index.push_back(r);
  options.format = ImageFormat::kSvg;
  const SpyPlot svg = spy_plot(big, nullptr, {}, options);
  EXPECT_TRUE(svg.density);
  EXPECT_EQ(test::xml_problem(svg.bytes), "");
}

TEST(SpyPlot, AnEmptyMatrixGivesAnEmptyFrame) {
  const SparsityPattern empty{0, 0, {0}, {}};
  const SpyPlot plot = spy_plot(empty, nullptr, {}, {});
  EXPECT_GT(test::png_size(plot.bytes).width, 0);
}

// Which labels a plot draws. Fine labels (one per row here) when every row has room for
// a line of text (11 pixels), otherwise the coarse ones thinned so that consecutive drawn labels
// are at least 11 pixels apart, otherwise round row numbers (1-based).
TEST(SpyPlot, LabelsAreFineWhenTheyFitThinnedSegmentsOtherwiseNumbersWithout) {
  SpyPlotOptions options;
  for (int i = 0; i < 10; ++i) options.fine.push_back({i, i + 1, "dof" + std::to_string(i + 1)});
  options.coarse = {{0, 1, "a"}, {1, 2, "b"}, {2, 6, "c"}, {6, 10, "d"}};
  const std::vector<SpyTick> fine = spy_plot_ticks(options, 10, 12.0);
  ASSERT_EQ(fine.size(), 10u);
  EXPECT_EQ(fine[3].text, "dof4");
  EXPECT_DOUBLE_EQ(fine[3].at, 3.5);
  // At 4 pixels per row: a (0.5 rows = 2 px), b (1.5 = 6 px: too close), c (4 = 16 px), d (8).
  const std::vector<SpyTick> coarse = spy_plot_ticks(options, 10, 4.0);
  ASSERT_EQ(coarse.size(), 3u);
  EXPECT_EQ(coarse[0].text, "a");
  EXPECT_EQ(coarse[1].text, "c");
  EXPECT_EQ(coarse[2].text, "d");
  EXPECT_DOUBLE_EQ(coarse[2].at, 8.0);
  // Without labels, 1-based numbers at a step of at least 33 pixels: 2 px per row -> every 20.
  const std::vector<SpyTick> numbers = spy_plot_ticks(SpyPlotOptions{}, 100, 2.0);
  ASSERT_EQ(numbers.size(), 5u);
  EXPECT_EQ(numbers[0].text, "20");
  EXPECT_DOUBLE_EQ(numbers[0].at, 19.5);
  EXPECT_EQ(numbers[4].text, "100");
  // Long names are shortened to 24 characters.
  SpyPlotOptions long_name;
  long_name.fine = {{0, 1, std::string(40, 'x')}};
  EXPECT_EQ(spy_plot_ticks(long_name, 1, 20.0)[0].text, std::string(21, 'x') + "...");
}

// The labels are drawn: ink left of the matrix at a labelled row and above it at the column,
// none in the same places of a plot with the labels of another row only.
TEST(SpyPlot, RowAndColumnLabelsAreDrawnBesideAndAboveTheMatrix) {
  const SparsityPattern diagonal = pattern_of({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
  SpyPlotOptions options;
  options.fine = {{0, 1, "first_joint"}, {1, 2, "second_joint"}, {2, 3, "third"}};
  const SpyPlot plot = spy_plot(diagonal, nullptr, {}, options);
  const DecodedPng png(plot.bytes);
  ASSERT_TRUE(png.ok());
  auto ink_in = [&](int x0, int x1, int y0, int y1) {
    int dark = 0;
    for (int x = std::max(0, x0); x < std::min(png.width(), x1); ++x)
      for (int y = std::max(0, y0); y < std::min(png.height(), y1); ++y)
        dark += is_white(png.pixel(x, y)) ? 0 : 1;
    return dark;
  };
  const int row1 = static_cast<int>(plot.top + 1.5 * plot.cell);
  const int column1 = static_cast<int>(plot.left + 1.5 * plot.cell);
  // "second_joint" left of row 1 and, turned, above column 1.
  EXPECT_GT(
      ink_in(static_cast<int>(plot.left) - 60, static_cast<int>(plot.left) - 5, row1 - 4, row1 + 4),
      10);
  EXPECT_GT(ink_in(column1 - 4, column1 + 4, static_cast<int>(plot.top) - 60,
                   static_cast<int>(plot.top) - 5),
            10);
  // Without labels the plot starts further left and has no room reserved for them.
  const SpyPlot bare = spy_plot(diagonal, nullptr, {}, SpyPlotOptions{});
  EXPECT_LT(bare.top, plot.top);
}

TEST(SpyPlot, BadRequestsThrow) {
  const SparsityPattern pattern = pattern_of({{1}});
  SpyPlotOptions options;
  options.format = ImageFormat::kDot;
  EXPECT_THROW(spy_plot(pattern, nullptr, {}, options), std::invalid_argument);
  options.format = ImageFormat::kPng;
  options.max_pixels = 9000;
  EXPECT_THROW(spy_plot(pattern, nullptr, {}, options), std::invalid_argument);
  options.max_pixels = 100;
  const SparsityPattern other = pattern_of({{1, 0}, {0, 1}});
  EXPECT_THROW(spy_plot(pattern, &other, {}, options), std::invalid_argument);
}

}  // namespace
}  // namespace skograph::viz
