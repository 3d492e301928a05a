// Spy plots of sparsity patterns with cairo (PNG, SVG, PDF): one square cell per matrix entry,
// serial-segment boundaries drawn across the matrix (part II Fig. 6 style), the fill-in of a
// factor in a second colour.
//
// When the matrix has more rows or columns than the plot has pixels (cairo image surfaces stop at
// 32767 pixels a side, pitfalls.md), the nonzeros are binned per pixel and each pixel is shaded by
// the fraction of its entries that are nonzero; SpyPlot::density says so, and a note explains it.
#pragma once

#include <string>
#include <vector>

#include "skograph/operators/segment_sparsity.hpp"
#include "skograph/viz/image_format.hpp"

namespace skograph::viz {

// A labelled range of rows [begin, end) (and of the same columns: the matrices drawn are square
// with one order for rows and columns): a dof, a body's block, a serial segment.
struct AxisLabel {
  int begin = 0, end = 0;
  std::string text;
};

struct SpyPlotOptions {
  ImageFormat format = ImageFormat::kPng;  // png, svg or pdf
  // Largest side of the matrix area in pixels (points for svg/pdf): 16 .. 8192 (a 8192 px image
  // takes 256 MiB; cairo's own limit is 32767). A matrix with more rows or columns than this is
  // drawn by density.
  int max_pixels = 800;
  int max_cell = 40;     // pixels per entry at most (small matrices do not become huge cells)
  std::string title;     // first line above the matrix (bold)
  std::string subtitle;  // second line (sizes, counts); may be empty
  std::string boundary_label = "serial segment boundary";  // legend entry of the boundary lines
  std::string caption;  // a line of plain words under the subtitle; may be empty
  // Row and column labels. `fine` (one per dof or body) are drawn when every range is tall enough
  // for a line of text; otherwise `coarse` (one per segment) at their ranges' middles, thinned
  // so that none overlap; without either, 1-based row numbers at a round step. Labels longer
  // than 24 characters are shortened.
  std::vector<AxisLabel> fine, coarse;
};

struct SpyPlot {
  std::string bytes;  // the encoded image
  int width = 0, height = 0;
  bool density = false;            // entries binned per pixel
  double left = 0, top = 0;        // pixel position of entry (0, 0)'s upper-left corner
  double cell = 0;                 // pixels per row and column (< 1 in density mode)
  std::vector<std::string> notes;  // for the user: density shading, boundaries left out
};

// `pattern` is drawn dark; entries of `fill` (when not null; normally a subset of `pattern`) in
// the fill colour; `boundaries` are row/column offsets where a segment starts (lines across the
// whole matrix). Throws std::invalid_argument for a format other than png, svg or pdf, sizes out
// of range or a fill pattern of other dimensions, std::runtime_error when cairo fails.
SpyPlot spy_plot(const SparsityPattern& pattern, const SparsityPattern* fill,
                 const std::vector<int>& boundaries, const SpyPlotOptions& options);

// The labels a plot draws at `cell` pixels per entry of a size x size matrix (options.fine,
// coarse): `at` in entries from the first row (a range's middle), the text as drawn.
struct SpyTick {
  double at = 0;
  std::string text;
};
std::vector<SpyTick> spy_plot_ticks(const SpyPlotOptions& options, int size, double cell);

}  // namespace skograph::viz
