// A closed chain (loops, gear couplings) by constraint embedding: its independent coordinates
// at a state, the embedding X (qd = X qd_R) and the reduced mass matrix M_R = X* M X.
//   closed_chain fourbar_chain.yaml
#include <iostream>
#include <skograph/model/dynamics.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: closed_chain MODEL\n";
    return 2;
  }
  try {
    const skograph::Model model = skograph::load_model(argv[1]);
    skograph::ModelData data(model);
    if (!model.is_closed_chain()) {
      std::cout << model.file() << " is a tree: every dof is independent\n";
      return 0;
    }
    const Eigen::VectorXd q = Eigen::VectorXd::Constant(model.dof_count(), 0.3);
    // The dependent coordinates of q are solved from the loops; the independent ones kept.
    const Eigen::MatrixXd reduced = skograph::reduced_mass_matrix(model, data, q);
    const Eigen::MatrixXd X = skograph::embedding_matrix(model, data, q);
    std::cout << data.independent.size() << " of " << model.dof_count() << " dofs independent:";
    for (const std::string& name : data.independent) std::cout << " " << name;
    std::cout << "\nM_R =\n" << reduced << "\n";
    const Eigen::MatrixXd M = skograph::mass_matrix(model, data, q);
    const double check = (X.transpose() * M * X - reduced).norm();
    std::cout << "|X* M X - M_R| = " << check << "\n";
    return check < 1e-9 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}
