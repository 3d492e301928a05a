// TRAJ.csv read back against a model's dofs: columns found by name in any order, extra columns
// kept, the contract's errors with their lines.
#include "skograph/io/trajectory_file.hpp"

#include <gtest/gtest.h>

#include "support/io_support.hpp"

namespace skograph {
namespace {

using io_test::expect_input_error;

const std::vector<std::string> kDofs{"a", "b:0", "b:1"};

TEST(TrajectoryFile, ColumnsAreFoundByNameAndTheRestKept) {
  // A byte-order mark, CRLF line ends, spaces around fields, the dofs out of order, an energy.
  const std::string text =
      "\xef\xbb\xbft, b:1 ,a,energy,b:0\r\n0,3,1,9,2\r\n0.5, 6e-1 ,+4,8,-5.25\r\n";
  const Trajectory trajectory = parse_trajectory(text, "T.csv", kDofs);
  EXPECT_EQ(trajectory.time, (std::vector<double>{0.0, 0.5}));
  Eigen::MatrixXd q(2, 3);
  q << 1, 2, 3, 4, -5.25, 0.6;
  EXPECT_EQ(trajectory.q, q);
  EXPECT_EQ(trajectory.extra, (std::vector<std::string>{"energy"}));
  EXPECT_EQ(trajectory.extra_values, Eigen::MatrixXd((Eigen::MatrixXd(2, 1) << 9, 8).finished()));
  // The file as skograph simulate --out writes it: no newline at the end is as good, and blank
  // lines may end it.
  EXPECT_EQ(parse_trajectory("t,a,b:0,b:1\n1,2,3,4", "T.csv", kDofs).q.row(0),
            Eigen::RowVector3d(2, 3, 4));
  EXPECT_EQ(parse_trajectory("t,a,b:0,b:1\n1,2,3,4\n\r\n\n", "T.csv", kDofs).time.size(), 1u);
}

// At most 100 000 rows: the page holds every row's poses.
TEST(TrajectoryFile, APageHoldsAtMostAHundredThousandRows) {
  std::string text = "t,a,b:0,b:1\n";
  for (int row = 0; row < 100000; ++row) text += std::to_string(row) + ",0,0,0\n";
  EXPECT_EQ(parse_trajectory(text, "T.csv", kDofs).time.size(), 100000u);
  io_test::expect_input_error([&] { parse_trajectory(text + "100000,0,0,0\n", "T.csv", kDofs); },
                              "T.csv", 100002, "more than 100000 rows");
}

TEST(TrajectoryFile, BadFilesNameTheirLine) {
  auto parse = [](const std::string& text) {
    return [text] { parse_trajectory(text, "T.csv", kDofs); };
  };
  expect_input_error(parse(""), "T.csv", 0, "empty");
  expect_input_error(parse("time,a,b:0,b:1\n0,1,2,3\n"), "T.csv", 1, "not 't'");
  expect_input_error(parse("t,a,b:0\n0,1,2\n"), "T.csv", 1, "no column for the model's dof 'b:1'");
  expect_input_error(parse("t,a,a,b:0,b:1\n"), "T.csv", 1, "column 'a' appears twice");
  expect_input_error(parse("t,a,,b:0,b:1\n"), "T.csv", 1, "column 3 has no name");
  expect_input_error(parse("t,a,b:0,b:1\n"), "T.csv", 1, "a header and no rows");
  expect_input_error(parse("t,a,b:0,b:1\n0,1,2,3\n1,2,3\n"), "T.csv", 3, "3 values, not 4");
  expect_input_error(parse("t,a,b:0,b:1\n0,1,x,3\n"), "T.csv", 2, "column 'b:0': 'x'");
  expect_input_error(parse("t,a,b:0,b:1\n0,1,nan,3\n"), "T.csv", 2, "not a finite number");
  expect_input_error(parse("t,a,b:0,b:1\n0,1,1e999,3\n"), "T.csv", 2, "not a finite number");
  expect_input_error(parse("t,a,b:0,b:1\n1e0,1,2,3\n0.5,1,2,3\n"), "T.csv", 3,
                     "the time goes back (t = 0.5 after 1e0)");
  expect_input_error(parse("t,a,b:0,b:1\n0,+-1,2,3\n"), "T.csv", 2, "'+-1' is not a finite");
  expect_input_error(parse("t,a,b:0,b:1\n0,1\r,2,3\n"), "T.csv", 2, "is not a finite number");
  expect_input_error(parse("t,a,b:0,b:1\n0,1,2,3\n\n1,1,2,3\n"), "T.csv", 3, "an empty line");
  expect_input_error(parse("t,a,b:0,b:1\n0,1,\xff,3\n"), "T.csv", 2, "UTF-8");
}

}  // namespace
}  // namespace skograph
