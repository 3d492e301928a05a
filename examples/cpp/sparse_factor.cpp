// The sparse joint-space mass matrix of a tree model and its CHOLMOD factor in the canonical
// (strictly canonical, part I section 2) order: no fill-in, nnz(L) = nnz(tril M).
//   sparse_factor humanoid.yaml M.mtx
#include <iostream>
#include <skograph/model/dynamics.hpp>
#include <skograph/sparse/cholmod_factorization.hpp>
#include <skograph/sparse/matrix_market.hpp>
#include <skograph/sparse/sparse_assembly.hpp>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: sparse_factor MODEL OUT.mtx\n";
    return 2;
  }
  try {
    const skograph::Model model = skograph::load_model(argv[1]);
    skograph::ModelData data(model);
    const skograph::RigidBodyModel& tree = model.tree();  // joints depth first
    skograph::RigidBodyData& tree_data = data.tree();
    const Eigen::VectorXd q = Eigen::VectorXd::Constant(tree.dof_count(), 0.2);
    skograph::update_positions(tree, q, tree_data);
    skograph::synchronize_sko_model(tree, tree_data);
    const Eigen::SparseMatrix<double> M = skograph::sparse_mass_matrix(tree_data.sko);

    // Analyze once (ordering, pattern of L), factorize for every configuration.
    skograph::CholmodFactorization factorization(tree_data.sko.structure(),
                                                 skograph::MassOrdering::kCanonical);
    factorization.factorize(M);
    const Eigen::SparseMatrix<double> L = factorization.factor();
    const Eigen::SparseMatrix<double> lower = M.triangularView<Eigen::Lower>();
    std::cout << tree.dof_count() << " dofs: nnz(tril M) = " << lower.nonZeros()
              << ", nnz(L) = " << L.nonZeros() << "\n";
    skograph::write_matrix_market(argv[2], M, true);
    const Eigen::VectorXd b = Eigen::VectorXd::Ones(tree.dof_count());
    const double residual = (M * factorization.solve(b) - b).norm();
    std::cout << "|M solve(b) - b| = " << residual << "\n";
    return residual < 1e-8 && L.nonZeros() == lower.nonZeros() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}
