// Load any robot file (URDF, YAML, MJCF, SDF) and run forward and inverse dynamics.
//   robot_dynamics arm7.urdf
#include <iostream>
#include <skograph/model/dynamics.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: robot_dynamics MODEL\n";
    return 2;
  }
  try {
    const skograph::Model model = skograph::load_model(argv[1]);  // massless flanges fused
    skograph::ModelData data(model);                              // the workspace: one per thread
    const int n = model.dof_count();
    const Eigen::VectorXd q = Eigen::VectorXd::LinSpaced(n, 0.1, 0.5);
    const Eigen::VectorXd qd = Eigen::VectorXd::Constant(n, 0.2);
    const Eigen::VectorXd tau = Eigen::VectorXd::Zero(n);

    // Vectors are in the file's dof order: model.dof_names().
    const Eigen::VectorXd qdd = skograph::forward_dynamics(model, data, q, qd, tau);
    const Eigen::VectorXd tau_back = skograph::inverse_dynamics(model, data, q, qd, qdd);
    std::cout << model.file() << ": " << n << " dofs\n";
    for (int i = 0; i < n; ++i)
      std::cout << "  " << model.dof_names()[static_cast<size_t>(i)] << "  qdd " << qdd(i) << "\n";
    std::cout << "|inverse_dynamics(forward_dynamics(tau)) - tau| = " << (tau_back - tau).norm()
              << "\n";
    return (tau_back - tau).norm() < 1e-8 ? 0 : 1;
  } catch (const std::exception& e) {  // one line naming the file (and line)
    std::cerr << e.what() << "\n";
    return 2;
  }
}
