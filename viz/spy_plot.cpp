#include "skograph/viz/spy_plot.hpp"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>

namespace skograph::viz {

namespace {

constexpr int kMaxPixels = 8192;
constexpr double kMargin = 16;
constexpr double kTitleBand = 30;
constexpr double kSubtitleBand = 18;
constexpr double kLegendBand = 28;
constexpr double kTitleSize = 13;
constexpr double kLegendSize = 11;
constexpr double kTickSize = 9;
constexpr double kTickLength = 2.5;  // the tick mark at the matrix's edge
constexpr double kTickGap = 7;  // between a label and the matrix: a clear gap after the tick mark
constexpr double kTickSpacing = 11;  // least distance between two labels' centres
constexpr std::size_t kLabelChars = 24;

struct Rgb {
  double r, g, b;
};
constexpr Rgb kInk{0.043, 0.145, 0.271};       // nonzero: dark navy
constexpr Rgb kFill{0.839, 0.153, 0.157};      // fill-in: red
constexpr Rgb kBoundary{0.259, 0.573, 0.776};  // segment boundary: blue
constexpr Rgb kFrame{0.45, 0.45, 0.45};

struct SurfaceDeleter {
  void operator()(cairo_surface_t* surface) const { cairo_surface_destroy(surface); }
};
struct CairoContextDeleter {
  void operator()(cairo_t* context) const { cairo_destroy(context); }
};
using Surface = std::unique_ptr<cairo_surface_t, SurfaceDeleter>;
using Context = std::unique_ptr<cairo_t, CairoContextDeleter>;

cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

void check(cairo_status_t status, const char* what) {
  if (status != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cairo: ") + what + ": " + cairo_status_to_string(status));
}

std::string shortened(const std::string& text) {
  if (text.size() <= kLabelChars) return text;
  return text.substr(0, kLabelChars - 3) + "...";
}

void set_colour(cairo_t* cr, Rgb c, double alpha = 1.0) {
  cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha);
}

void set_font(cairo_t* cr, double size, bool bold) {
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

double text_width(cairo_t* cr, const std::string& text) {
  cairo_text_extents_t extents;
  cairo_text_extents(cr, text.c_str(), &extents);
  return extents.x_advance;
}

// One legend entry: a swatch (square or bar) and its text.
struct LegendItem {
  Rgb colour;
  bool bar;  // a thin bar (a boundary line) instead of a square
  std::string text;
};

constexpr double kSwatch = 10, kSwatchGap = 5, kItemGap = 16;

double legend_width(cairo_t* cr, const std::vector<LegendItem>& items) {
  set_font(cr, kLegendSize, false);
  double width = 0;
  for (const LegendItem& item : items)
    width += kSwatch + kSwatchGap + text_width(cr, item.text) + kItemGap;
  return items.empty() ? 0 : width - kItemGap;
}

// Where everything goes.
struct Geometry {
  bool density = false;
  double cell = 0;                      // pixels per entry
  int area_width = 0, area_height = 0;  // matrix area in pixels
  int width = 0, height = 0;            // whole image
  double left = 0, top = 0;
};

// Pixel bins of density mode: entry (r, c) falls into bin (floor(r * cell), floor(c * cell)).
struct Bins {
  int columns = 0, rows = 0;
  std::vector<std::uint32_t> count, fill_count;  // row-major
  std::vector<std::uint32_t> rows_per_bin, columns_per_bin;
};

Bins bin_entries(const SparsityPattern& pattern, const SparsityPattern* fill,
                 const Geometry& geometry) {
  Bins bins;
  bins.columns = geometry.area_width;
  bins.rows = geometry.area_height;
  const auto size = static_cast<std::size_t>(bins.columns) * static_cast<std::size_t>(bins.rows);
  bins.count.assign(size, 0);
  auto bin_of = [&](int index, int bin_count) {
    return std::min(bin_count - 1, static_cast<int>(index * geometry.cell));
  };
  std::vector<int> row_bin(pattern.rows);
  bins.rows_per_bin.assign(bins.rows, 0);
  bins.columns_per_bin.assign(bins.columns, 0);
  for (int r = 0; r < pattern.rows; ++r) ++bins.rows_per_bin[row_bin[r] = bin_of(r, bins.rows)];
  for (int c = 0; c < pattern.cols; ++c) ++bins.columns_per_bin[bin_of(c, bins.columns)];
  auto accumulate = [&](const SparsityPattern& entries, std::vector<std::uint32_t>& count) {
    for (int c = 0; c < entries.cols; ++c) {
      const int column_bin = bin_of(c, bins.columns);
      for (int e = entries.column_start[c]; e < entries.column_start[c + 1]; ++e)
        ++count[static_cast<std::size_t>(row_bin[entries.row_index[e]]) * bins.columns +
                column_bin];
    }
  };
  accumulate(pattern, bins.count);
  if (fill != nullptr) {
    bins.fill_count.assign(size, 0);
    accumulate(*fill, bins.fill_count);
  }
  return bins;
}

// Density mode: one pixel per bin, darker the larger the share of nonzeros in it (square root so
// that a single nonzero among hundreds of entries still shows).
Surface density_image(const Bins& bins) {
  Surface image(cairo_image_surface_create(CAIRO_FORMAT_RGB24, std::max(bins.columns, 1),
                                           std::max(bins.rows, 1)));
  check(cairo_surface_status(image.get()), "density image");
  cairo_surface_flush(image.get());
  unsigned char* data = cairo_image_surface_get_data(image.get());
  const int stride = cairo_image_surface_get_stride(image.get());
  for (int y = 0; y < bins.rows; ++y) {
    auto* row = reinterpret_cast<std::uint32_t*>(data + static_cast<std::ptrdiff_t>(y) * stride);
    for (int x = 0; x < bins.columns; ++x) {
      const std::size_t bin = static_cast<std::size_t>(y) * bins.columns + x;
      const std::uint32_t count = bins.count[bin];
      if (count == 0) {
        row[x] = 0xFFFFFFu;
        continue;
      }
      const double capacity =
          static_cast<double>(bins.rows_per_bin[y]) * static_cast<double>(bins.columns_per_bin[x]);
      const double darkness = 0.3 + 0.7 * std::sqrt(std::min(1.0, count / capacity));
      const Rgb ink = !bins.fill_count.empty() && bins.fill_count[bin] > 0 ? kFill : kInk;
      auto channel = [&](double value) {
        return static_cast<std::uint32_t>(std::lround(255.0 * (1.0 - darkness * (1.0 - value))));
      };
      row[x] = (channel(ink.r) << 16) | (channel(ink.g) << 8) | channel(ink.b);
    }
  }
  cairo_surface_mark_dirty(image.get());
  return image;
}

// Exact mode: consecutive nonzero rows of a column are one rectangle; with large cells every
// entry is its own square with a one-pixel gap, so that single entries can be counted.
void draw_entries(cairo_t* cr, const SparsityPattern& entries, const Geometry& geometry) {
  const double cell = geometry.cell;
  const bool separate = cell >= 8;
  for (int c = 0; c < entries.cols; ++c) {
    const int begin = entries.column_start[c], end = entries.column_start[c + 1];
    for (int e = begin; e < end;) {
      int last = e;
      if (!separate)
        while (last + 1 < end && entries.row_index[last + 1] == entries.row_index[last] + 1) ++last;
      const double x = geometry.left + c * cell;
      const double y = geometry.top + entries.row_index[e] * cell;
      const double height = (entries.row_index[last] - entries.row_index[e] + 1) * cell;
      cairo_rectangle(cr, x, y, separate ? cell - 1 : cell, separate ? height - 1 : height);
      e = last + 1;
    }
  }
  cairo_fill(cr);
}

// Row labels right-aligned left of the matrix, column labels turned a quarter, reading upward,
// above it; a short tick mark at each.
void draw_ticks(cairo_t* cr, const std::vector<SpyTick>& ticks, const Geometry& geometry) {
  set_font(cr, kTickSize, false);
  set_colour(cr, {0.2, 0.2, 0.2});
  cairo_set_line_width(cr, 1);
  for (const SpyTick& tick : ticks) {
    const double y = geometry.top + tick.at * geometry.cell;
    const double x = geometry.left + tick.at * geometry.cell;
    const double width = text_width(cr, tick.text);
    cairo_move_to(cr, geometry.left - kTickGap - width, y + kTickSize * 0.35);
    cairo_show_text(cr, tick.text.c_str());
    cairo_save(cr);
    cairo_move_to(cr, x + kTickSize * 0.35, geometry.top - kTickGap);
    cairo_rotate(cr, -M_PI / 2);
    cairo_show_text(cr, tick.text.c_str());
    cairo_restore(cr);
    cairo_move_to(cr, geometry.left - kTickLength, std::round(y) + 0.5);
    cairo_line_to(cr, geometry.left, std::round(y) + 0.5);
    cairo_move_to(cr, std::round(x) + 0.5, geometry.top - kTickLength);
    cairo_line_to(cr, std::round(x) + 0.5, geometry.top);
  }
  cairo_stroke(cr);
}

void draw_plot(cairo_t* cr, const SparsityPattern& pattern, const SparsityPattern* fill,
               const std::vector<int>& boundaries, bool draw_boundaries, const Geometry& geometry,
               const std::string& title, const std::string& subtitle, const std::string& caption,
               const std::vector<SpyTick>& ticks, const std::vector<LegendItem>& legend) {
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);

  set_colour(cr, {0.1, 0.1, 0.1});
  set_font(cr, kTitleSize, true);
  cairo_move_to(cr, kMargin, kMargin + kTitleSize);
  cairo_show_text(cr, title.c_str());
  if (!subtitle.empty()) {
    set_colour(cr, {0.25, 0.25, 0.25});
    set_font(cr, kLegendSize, false);
    cairo_move_to(cr, kMargin, kMargin + kTitleSize + kSubtitleBand);
    cairo_show_text(cr, subtitle.c_str());
  }
  if (!caption.empty()) {
    set_colour(cr, {0.25, 0.25, 0.25});
    set_font(cr, kLegendSize, false);
    const double line = kMargin + kTitleSize + (subtitle.empty() ? 1 : 2) * kSubtitleBand;
    cairo_move_to(cr, kMargin, line);
    cairo_show_text(cr, caption.c_str());
  }
  draw_ticks(cr, ticks, geometry);

  if (geometry.density) {
    const Bins bins = bin_entries(pattern, fill, geometry);
    const Surface image = density_image(bins);
    cairo_save(cr);
    cairo_translate(cr, geometry.left, geometry.top);
    cairo_set_source_surface(cr, image.get(), 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_rectangle(cr, 0, 0, bins.columns, bins.rows);
    cairo_fill(cr);
    cairo_restore(cr);
  } else {
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    set_colour(cr, kInk);
    draw_entries(cr, pattern, geometry);
    if (fill != nullptr) {
      set_colour(cr, kFill);
      draw_entries(cr, *fill, geometry);
    }
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
  }

  if (draw_boundaries) {
    // Lines where a segment starts, across the whole matrix: the block structure of part II
    // Eq. 61-63 and Fig. 6. Two pixels wide on big cells, so they read as block edges.
    const double width = geometry.cell >= 6 ? 2 : 1;
    set_colour(cr, kBoundary, 0.85);
    for (int b : boundaries) {
      const double x = geometry.left + b * geometry.cell, y = geometry.top + b * geometry.cell;
      const double offset = width == 2 ? -1 : 0;
      if (b < pattern.cols)
        cairo_rectangle(cr, std::round(x) + offset, geometry.top, width, geometry.area_height);
      if (b < pattern.rows)
        cairo_rectangle(cr, geometry.left, std::round(y) + offset, geometry.area_width, width);
    }
    cairo_fill(cr);
  }

  set_colour(cr, kFrame);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, geometry.left - 0.5, geometry.top - 0.5, geometry.area_width + 1,
                  geometry.area_height + 1);
  cairo_stroke(cr);

  set_font(cr, kLegendSize, false);
  double x = kMargin;
  const double y = geometry.height - kMargin;
  for (const LegendItem& item : legend) {
    set_colour(cr, item.colour);
    if (item.bar)
      cairo_rectangle(cr, x + kSwatch / 2 - 1, y - kSwatch, 2, kSwatch);
    else
      cairo_rectangle(cr, x, y - kSwatch, kSwatch, kSwatch);
    cairo_fill(cr);
    set_colour(cr, {0.15, 0.15, 0.15});
    cairo_move_to(cr, x + kSwatch + kSwatchGap, y);
    cairo_show_text(cr, item.text.c_str());
    x += kSwatch + kSwatchGap + text_width(cr, item.text) + kItemGap;
  }
}

}  // namespace

// Every fine label when each range has room for a line of text, else the coarse ones thinned
// greedily in order, else 1-based row numbers at a round step.
std::vector<SpyTick> spy_plot_ticks(const SpyPlotOptions& options, int size, double cell) {
  std::vector<SpyTick> ticks;
  auto middle = [](const AxisLabel& label) { return 0.5 * (label.begin + label.end); };
  bool fine_fits = !options.fine.empty();
  for (const AxisLabel& label : options.fine)
    fine_fits = fine_fits && (label.end - label.begin) * cell >= kTickSpacing;
  if (fine_fits) {
    for (const AxisLabel& label : options.fine)
      ticks.push_back({middle(label), shortened(label.text)});
    return ticks;
  }
  if (!options.coarse.empty()) {
    double last = -1e9;
    for (const AxisLabel& label : options.coarse) {
      const double at = middle(label);
      if ((at - last) * cell < kTickSpacing) continue;
      ticks.push_back({at, shortened(label.text)});
      last = at;
    }
    return ticks;
  }
  // 1-based row numbers every 1, 2, 5, 10, 20, 50, ... rows, at least 3 spacings apart.
  long step = 1;
  for (int k = 0; step * cell < 3 * kTickSpacing; ++k)
    step = (k % 3 == 1 ? step * 5 / 2 : step * 2);
  for (long row = step; row <= size; row += step)
    ticks.push_back({static_cast<double>(row) - 0.5, std::to_string(row)});
  return ticks;
}

SpyPlot spy_plot(const SparsityPattern& pattern, const SparsityPattern* fill,
                 const std::vector<int>& boundaries, const SpyPlotOptions& options) {
  if (options.format == ImageFormat::kDot)
    throw std::invalid_argument("a spy plot is an image: png, svg or pdf, not dot");
  if (options.max_pixels < 16 || options.max_pixels > kMaxPixels)
    throw std::invalid_argument("the plot size must be 16 to " + std::to_string(kMaxPixels) +
                                " pixels, not " + std::to_string(options.max_pixels));
  if (options.max_cell < 1) throw std::invalid_argument("max_cell must be positive");
  if (fill != nullptr && (fill->rows != pattern.rows || fill->cols != pattern.cols))
    throw std::invalid_argument("the fill pattern's size differs from the matrix's");

  SpyPlot plot;
  Geometry geometry;
  const int side = std::max({pattern.rows, pattern.cols, 1});
  geometry.density = side > options.max_pixels;
  if (geometry.density) {
    geometry.cell = static_cast<double>(options.max_pixels) / side;
    geometry.area_width = static_cast<int>(std::ceil(pattern.cols * geometry.cell));
    geometry.area_height = static_cast<int>(std::ceil(pattern.rows * geometry.cell));
  } else {
    geometry.cell = std::min(options.max_cell, options.max_pixels / side);
    geometry.area_width = pattern.cols * static_cast<int>(geometry.cell);
    geometry.area_height = pattern.rows * static_cast<int>(geometry.cell);
  }
  // Boundaries closer than 4 pixels on average would paint the matrix over.
  const bool draw_boundaries =
      !boundaries.empty() &&
      4.0 * static_cast<double>(boundaries.size()) <= std::max(geometry.area_width, 1);
  if (geometry.density)
    plot.notes.push_back("the " + std::to_string(pattern.rows) + " x " +
                         std::to_string(pattern.cols) +
                         " matrix has more rows or columns than the plot has pixels (" +
                         std::to_string(options.max_pixels) +
                         "): nonzeros are binned per pixel and shaded by density");
  if (!boundaries.empty() && !draw_boundaries)
    plot.notes.push_back("segment boundaries left out: " + std::to_string(boundaries.size() + 1) +
                         " segments on " + std::to_string(geometry.area_width) + " pixels");

  std::vector<LegendItem> legend{{kInk, false, "nonzero"}};
  if (fill != nullptr) legend.push_back({kFill, false, "fill-in"});
  if (draw_boundaries) legend.push_back({kBoundary, true, options.boundary_label});
  if (geometry.density) legend.push_back({kFrame, false, "darker: more nonzeros per pixel"});

  const std::vector<SpyTick> ticks =
      spy_plot_ticks(options, std::max(pattern.rows, pattern.cols), geometry.cell);
  double label_band = 0;  // room for the row labels at the left and the column labels on top
  {
    // Text widths decide the image's width (title and legend must fit).
    const Surface scratch(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1));
    const Context measure(cairo_create(scratch.get()));
    set_font(measure.get(), kTickSize, false);
    for (const SpyTick& tick : ticks)
      label_band = std::max(label_band, text_width(measure.get(), tick.text) + kTickGap + 2);
    set_font(measure.get(), kTitleSize, true);
    double title_width = text_width(measure.get(), options.title);
    set_font(measure.get(), kLegendSize, false);
    title_width = std::max({title_width, text_width(measure.get(), options.subtitle),
                            text_width(measure.get(), options.caption)});
    const double legend_length = legend_width(measure.get(), legend);
    geometry.width = static_cast<int>(
        std::ceil(std::max({geometry.area_width + label_band + 2 * kMargin,
                            title_width + 2 * kMargin, legend_length + 2 * kMargin})));
  }
  const double title_band = kTitleBand + (options.subtitle.empty() ? 0 : kSubtitleBand) +
                            (options.caption.empty() ? 0 : kSubtitleBand);
  geometry.height = static_cast<int>(
      std::ceil(geometry.area_height + label_band + 2 * kMargin + title_band + kLegendBand));
  geometry.left =
      std::floor(label_band + (geometry.width - label_band - geometry.area_width) / 2.0);
  geometry.top = std::ceil(kMargin + title_band + label_band);

  Surface surface;
  switch (options.format) {
    case ImageFormat::kPng:
      surface.reset(
          cairo_image_surface_create(CAIRO_FORMAT_ARGB32, geometry.width, geometry.height));
      break;
    case ImageFormat::kSvg:
      surface.reset(cairo_svg_surface_create_for_stream(append_bytes, &plot.bytes, geometry.width,
                                                        geometry.height));
      break;
    case ImageFormat::kPdf:
      surface.reset(cairo_pdf_surface_create_for_stream(append_bytes, &plot.bytes, geometry.width,
                                                        geometry.height));
      break;
    case ImageFormat::kDot:
      break;
  }
  check(cairo_surface_status(surface.get()), "surface");
  {
    const Context cr(cairo_create(surface.get()));
    draw_plot(cr.get(), pattern, fill, boundaries, draw_boundaries, geometry, options.title,
              options.subtitle, options.caption, ticks, legend);
    check(cairo_status(cr.get()), "drawing");
  }
  if (options.format == ImageFormat::kPng)
    check(cairo_surface_write_to_png_stream(surface.get(), append_bytes, &plot.bytes), "png");
  cairo_surface_finish(surface.get());
  check(cairo_surface_status(surface.get()), "finishing");

  plot.width = geometry.width;
  plot.height = geometry.height;
  plot.density = geometry.density;
  plot.left = geometry.left;
  plot.top = geometry.top;
  plot.cell = geometry.cell;
  return plot;
}

}  // namespace skograph::viz
