#include "export_command.hpp"

#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "skograph/cli/commands.hpp"
#include "model_loading.hpp"
#include "usage.hpp"
#include "skograph/graph/digraph.hpp"
#include "skograph/io/mechanism_file.hpp"
#include "skograph/graph/output_file.hpp"
#include "skograph/io/state_reader.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/rigid_body_model.hpp"
#include "skograph/sparse/cholmod_factorization.hpp"
#include "skograph/sparse/matrix_market.hpp"
#include "skograph/sparse/sparse_assembly.hpp"

namespace skograph::cli {

namespace {

constexpr const char* kExportUsage =
    "usage: skograph export MODEL [--state S.json] --mass M.mtx [--factor L.mtx] [--perm P.txt] "
    "[--kernel E.mtx] [--resolvent A.mtx] [--ordering canonical|root-first|amd|metis] [--strict] "
    "[--independent JOINT,...]";

struct ExportOptions {
  std::string model, state, mass, factor, permutation, kernel, resolvent;
  MassOrdering ordering = MassOrdering::kCanonical;
  bool strict = false;
  std::vector<std::string> independent;  // --independent
};

ExportOptions parse_options(const std::vector<std::string>& args) {
  ExportOptions options;
  const std::pair<const char*, std::string ExportOptions::*> file_options[] = {
      {"--state", &ExportOptions::state},   {"--mass", &ExportOptions::mass},
      {"--factor", &ExportOptions::factor}, {"--perm", &ExportOptions::permutation},
      {"--kernel", &ExportOptions::kernel}, {"--resolvent", &ExportOptions::resolvent}};
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    bool matched = false;
    for (const auto& [name, member] : file_options)
      if (arg == name) {
        if (i + 1 >= args.size()) throw UsageError(arg + " needs a file (" + kExportUsage + ")");
        options.*member = args[++i];
        matched = true;
      }
    if (matched) continue;
    if (arg == "--strict") {
      options.strict = true;
    } else if (arg == "--independent") {
      if (i + 1 >= args.size())
        throw UsageError(std::string("--independent needs joint names (") + kExportUsage + ")");
      options.independent = parse_name_list(arg, args[++i]);
    } else if (arg == "--ordering") {
      if (i + 1 >= args.size())
        throw UsageError(std::string("--ordering needs a name (") + kExportUsage + ")");
      const auto ordering = parse_ordering(args[++i]);
      if (!ordering)
        throw UsageError("unknown ordering '" + args[i] +
                         "' (canonical, root-first, amd or metis)");
      options.ordering = *ordering;
    } else if (!arg.empty() && arg[0] == '-') {
      throw UsageError("unknown option '" + arg + "' (" + kExportUsage + ")");
    } else if (options.model.empty()) {
      options.model = arg;
    } else {
      throw UsageError("unexpected argument '" + arg + "' (" + kExportUsage + ")");
    }
  }
  if (options.model.empty()) throw UsageError(std::string("missing MODEL (") + kExportUsage + ")");
  if (options.mass.empty()) throw UsageError(std::string("missing --mass (") + kExportUsage + ")");
  return options;
}

// What gets exported: an SKO model at the state and where its hinge entries go in the files.
// Trees: the mechanism's SKO model, hinge order = dof order. Closed chains: the constraint-embedded
// model (constraint-embedding §5-7: aggregated nodes, hinge maps H_R), whose joint-space mass
// matrix is the reduced M_R = X* M X; its hinge entries are renumbered to the order of the
// independent dofs (as `skograph dynamics` lists them).
struct ExportedModel {
  std::unique_ptr<RigidBodyModel> tree_model;
  std::unique_ptr<RigidBodyData> tree_data;
  std::unique_ptr<ClosedChainModel> closed_model;
  std::unique_ptr<ClosedChainData> closed_data;
  const SkoModel* sko = nullptr;
  std::vector<int> output_index;       // embedded hinge entry -> row of the files; empty: identity
  std::vector<int> node_output_index;  // scalar row of E and A (6 per node) -> row of the files
  std::string description;
  std::string massless_joint;  // a joint that moves no mass (M is singular), "" when none
};

ExportedModel load_exported_model(const ExportOptions& options) {
  ExportedModel exported;
  DofOrder order;  // the model lists its joints depth first; the files are in the file's order
  Mechanism mechanism = load_mechanism(options.model, options.strict, &order, options.independent);
  if (!is_closed_chain(mechanism)) {
    exported.tree_model = std::make_unique<RigidBodyModel>(
        load_tree_model(options.model, std::move(mechanism), options.strict));
    const RigidBodyModel& model = *exported.tree_model;
    const std::vector<int> massless = model.massless_moving_joints();
    if (!massless.empty()) exported.massless_joint = model.mechanism().joints[massless[0]].name;
    const MechanismState state = options.state.empty()
                                     ? zero_state(model.mechanism())
                                     : read_state_file(options.state, model.mechanism());
    exported.tree_data = std::make_unique<RigidBodyData>(model);
    update_positions(model, state.q, *exported.tree_data);
    synchronize_sko_model(model, *exported.tree_data);
    exported.sko = &exported.tree_data->sko;
    exported.description = std::to_string(model.dof_count()) + " dofs";
    if (!order.identity()) {
      for (int i = 0; i < model.dof_count(); ++i)
        exported.output_index.push_back(order.file_dof(i));
      for (int k = 0; k < model.node_count(); ++k)
        for (int r = 0; r < 6; ++r)
          exported.node_output_index.push_back(6 * order.file_joint(k) + r);
    }
    return exported;
  }
  exported.closed_model = std::make_unique<ClosedChainModel>(
      load_closed_chain_model(options.model, std::move(mechanism), options.strict));
  const ClosedChainModel& model = *exported.closed_model;
  const std::vector<int> massless = model.massless_moving_joints();
  if (!massless.empty()) exported.massless_joint = model.mechanism().joints[massless[0]].name;
  const MechanismState state = options.state.empty()
                                   ? zero_state(model.mechanism())
                                   : read_state_file(options.state, model.mechanism());
  exported.closed_data = std::make_unique<ClosedChainData>(model);
  ClosedChainData& data = *exported.closed_data;
  Eigen::VectorXd q = state.q;
  try {
    close_positions(model, data, q);
    update_closed_chain(model, data, q, Eigen::VectorXd::Zero(model.dof_count()));
  } catch (const ClosureError& e) {
    throw UsageError(naming_file(options.state.empty() ? options.model : options.state, e.what()));
  }
  exported.sko = data.embedded.get();
  // Rows in the order of the independent dofs as the file lists them.
  const std::vector<int> shown = order.file_sorted(data.independent);
  std::vector<int> rank(shown.size());
  for (std::size_t a = 0; a < shown.size(); ++a)
    rank[static_cast<std::size_t>(shown[a])] = static_cast<int>(a);
  for (const int e : data.embedded_to_independent)
    exported.output_index.push_back(rank[static_cast<std::size_t>(e)]);
  exported.description = "closed chain, " + std::to_string(data.independent.size()) + " of " +
                         std::to_string(model.dof_count()) +
                         " dofs independent (reduced M_R, rows in the order of the independent "
                         "dofs)";
  return exported;
}

int run_export(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const ExportOptions options = parse_options(args);
  const ExportedModel exported = load_exported_model(options);
  const SkoModel& sko = *exported.sko;

  // Everything is computed first, then written all or nothing.
  Eigen::SparseMatrix<double> mass = sparse_mass_matrix(sko);
  std::vector<int> canonical = canonical_dof_order(sko.structure());
  if (!exported.output_index.empty()) {
    mass = renumber_symmetric(mass, exported.output_index);
    for (int& dof : canonical) dof = exported.output_index[static_cast<std::size_t>(dof)];
  }
  if (!Eigen::Map<const Eigen::VectorXd>(mass.valuePtr(), mass.nonZeros()).allFinite())
    throw UsageError(options.model + ": the mass matrix is not finite at this state");
  std::vector<std::pair<std::string, std::string>> files = {
      {options.mass, matrix_market_text(mass, true)}};
  std::ostringstream summary;
  summary << "skograph export " << options.model << ": " << exported.description << ", nnz(M) "
          << mass.nonZeros();
  if (!options.factor.empty() || !options.permutation.empty()) {
    CholmodFactorization chol(sparsity_pattern(mass), options.ordering, canonical);
    long lower = 0;
    for (int c = 0; c < mass.outerSize(); ++c)
      for (Eigen::SparseMatrix<double>::InnerIterator it(mass, c); it; ++it) lower += it.row() >= c;
    summary << ", " << ordering_name(options.ordering) << " ordering nnz(L) "
            << chol.factor_nonzeros() << " (fill " << chol.factor_nonzeros() - lower << "), "
            << chol.flops() << " flops";
    if (!options.factor.empty()) {
      if (!exported.massless_joint.empty())
        throw UsageError(options.model + ": the mass matrix is singular (joint '" +
                         exported.massless_joint +
                         "' moves no mass: every link below it is massless), so it has no "
                         "Cholesky factor (--factor)");
      try {
        chol.factorize(mass);
      } catch (const NotPositiveDefinite& e) {
        throw UsageError(options.model + ": " + e.what() + " at this state");
      }
      files.emplace_back(options.factor, matrix_market_text(chol.factor(), false));
    }
    if (!options.permutation.empty())
      files.emplace_back(options.permutation, permutation_text(chol.permutation()));
  }
  // E and A per node (6 rows each), in the file's joint order for trees.
  auto in_node_order = [&](const Eigen::SparseMatrix<double>& matrix) {
    return exported.node_output_index.empty()
               ? matrix
               : renumber_symmetric(matrix, exported.node_output_index);
  };
  if (!options.kernel.empty())
    files.emplace_back(options.kernel,
                       matrix_market_text(in_node_order(sparse_kernel(sko)), false));
  if (!options.resolvent.empty())
    files.emplace_back(options.resolvent,
                       matrix_market_text(in_node_order(sparse_resolvent(sko)), false));
  bool to_standard_output = false;
  for (const auto& file : files)
    to_standard_output = to_standard_output || is_standard_output(file.first);
  if (to_standard_output && files.size() > 1)
    throw UsageError(
        "'-' (standard output) only when one file is written; name the files of --mass, "
        "--factor, --perm, --kernel and --resolvent");
  write_command_outputs(files, out);
  summary << "; wrote";
  for (const auto& file : files) summary << " " << file.first;
  // With the matrix on standard output, the summary goes to standard error.
  (to_standard_output ? err : out) << summary.str() << "\n";
  return kExitOk;
}

}  // namespace

int export_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    return run_export(args, out, err);
  } catch (const InputError& e) {
    print_line(err, "export", e.what());
  } catch (const UsageError& e) {
    print_line(err, "export", e.what());
  } catch (const MatrixMarketError& e) {
    print_line(err, "export", e.what());
  } catch (const OrderingUnavailable& e) {
    print_line(err, "export", e.what());
  }
  return kExitBadInput;
}

}  // namespace skograph::cli
