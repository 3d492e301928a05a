// TRAJ.csv: the trajectory `skograph simulate --out` writes, read back for `skograph view`.
//   t,q1,q2:1,q2:2,...,q1_qd,...,energy[,loop force columns]
// One header line, then one row per sample: comma-separated finite numbers, as many as header
// columns, the times never decreasing. The header's first column is "t"; every dof of the model
// (its dof names, "joint" or "joint:i") must have exactly one column; other columns (velocities,
// energy, loop forces) are kept by name for whoever wants them. Errors throw
// skograph::InputError(file, line, problem).
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

namespace skograph {

struct Trajectory {
  std::vector<double> time;        // one per row
  Eigen::MatrixXd q;               // rows x dofs, columns in the order of the dof names given
  std::vector<std::string> extra;  // the other columns' names, in file order
  Eigen::MatrixXd extra_values;    // rows x extra
};

Trajectory parse_trajectory(const std::string& text, const std::string& source,
                            const std::vector<std::string>& dofs);
Trajectory read_trajectory_file(const std::string& path, const std::vector<std::string>& dofs);

}  // namespace skograph
