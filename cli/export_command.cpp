#include "cli/export_command.hpp"

#include <ostream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "cli/commands.hpp"
#include "graph/digraph.hpp"
#include "io/mechanism_file.hpp"
#include "io/state_reader.hpp"
#include "rigid/rigid_body_model.hpp"
#include "sparse/cholmod_factorization.hpp"
#include "sparse/matrix_market.hpp"
#include "sparse/sparse_assembly.hpp"

namespace skograph::cli {

namespace {

constexpr const char* kExportUsage =
    "usage: skograph export MODEL [--state S.json] --mass M.mtx [--factor L.mtx] [--perm P.txt] "
    "[--kernel E.mtx] [--resolvent A.mtx] [--ordering canonical|root-first|amd|metis]";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ExportOptions {
  std::string model, state, mass, factor, permutation, kernel, resolvent;
  MassOrdering ordering = MassOrdering::kCanonical;
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
    if (arg == "--ordering") {
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

// Tree mechanisms only: the reduced mass matrix M_R of a closed chain needs the constraint
// embedding model (rigid/closed_chain_model.hpp), which this build's export does not use yet.
RigidBodyModel load_tree_model(const std::string& file) {
  Mechanism mechanism = read_mechanism_file(file);
  if (!mechanism.loops.empty() || !mechanism.couplings.empty())
    throw InputError(file, 0,
                     "closed chains (" + std::to_string(mechanism.loops.size()) + " loop(s), " +
                         std::to_string(mechanism.couplings.size()) +
                         " coupling(s)) cannot be exported yet: the reduced mass matrix needs "
                         "constraint embedding");
  try {
    return RigidBodyModel(without_massless_fixed_leaves(mechanism));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

int run_export(const std::vector<std::string>& args, std::ostream& out) {
  const ExportOptions options = parse_options(args);
  const RigidBodyModel model = load_tree_model(options.model);
  const MechanismState state = options.state.empty()
                                   ? zero_state(model.mechanism())
                                   : read_state_file(options.state, model.mechanism());
  RigidBodyData data(model);
  update_positions(model, state.q, data);
  synchronize_sko_model(model, data);
  const SkoModel& sko = data.sko;

  // Everything is computed first, then written all or nothing.
  const Eigen::SparseMatrix<double> mass = sparse_mass_matrix(sko);
  std::vector<std::pair<std::string, std::string>> files = {
      {options.mass, matrix_market_text(mass, true)}};
  std::ostringstream summary;
  summary << "skograph export " << options.model << ": " << mass.rows() << " dofs, nnz(M) "
          << mass.nonZeros();
  if (!options.factor.empty() || !options.permutation.empty()) {
    CholmodFactorization chol(sko.structure(), options.ordering);
    long lower = 0;
    for (int c = 0; c < mass.outerSize(); ++c)
      for (Eigen::SparseMatrix<double>::InnerIterator it(mass, c); it; ++it) lower += it.row() >= c;
    summary << ", " << ordering_name(options.ordering) << " ordering nnz(L) "
            << chol.factor_nonzeros() << " (fill " << chol.factor_nonzeros() - lower << "), "
            << chol.flops() << " flops";
    if (!options.factor.empty()) {
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
  if (!options.kernel.empty())
    files.emplace_back(options.kernel, matrix_market_text(sparse_kernel(sko), false));
  if (!options.resolvent.empty())
    files.emplace_back(options.resolvent, matrix_market_text(sparse_resolvent(sko), false));
  write_files_atomically(files);
  summary << "; wrote";
  for (const auto& file : files) summary << " " << file.first;
  out << summary.str() << "\n";
  return kExitOk;
}

}  // namespace

int export_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    return run_export(args, out);
  } catch (const InputError& e) {
    err << "skograph export: " << e.what() << "\n";
  } catch (const UsageError& e) {
    err << "skograph export: " << e.what() << "\n";
  } catch (const MatrixMarketError& e) {
    err << "skograph export: " << e.what() << "\n";
  } catch (const OrderingUnavailable& e) {
    err << "skograph export: " << e.what() << "\n";
  }
  return kExitBadInput;
}

}  // namespace skograph::cli
