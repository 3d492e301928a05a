#include "export_command.hpp"

#include <cmath>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "dynamics_report.hpp"
#include "skograph/cli/exit_status.hpp"
#include "skograph/graph/digraph.hpp"
#include "skograph/graph/output_file.hpp"
#include "skograph/model/constraints.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/report/kkt_export.hpp"
#include "skograph/sparse/cholmod_factorization.hpp"
#include "skograph/sparse/matrix_market.hpp"
#include "skograph/sparse/sparse_export.hpp"
#include "usage.hpp"
#include "warnings.hpp"

namespace skograph::cli {

namespace {

constexpr const char* kExportUsage =
    "usage: skograph export MODEL [--state S.json] [--mass M.mtx] [--factor L.mtx] [--perm P.txt] "
    "[--kernel E.mtx] [--resolvent A.mtx] [--ordering canonical|root-first|amd|metis] "
    "[--constraints G.mtx] [--constraint-labels G.txt] [--constraint-bias b.mtx] [--kkt K.mtx] "
    "[--kkt-rhs r.mtx] [--kkt-labels K.txt] [--kkt-eps E] [--strict] "
    "[--independent JOINT,...] [--loops LOOPS.yaml] [--base LINK]";

struct ExportOptions {
  std::string model, state, mass, factor, permutation, kernel, resolvent;
  std::string constraints, constraint_labels, constraint_bias;  // G, its row labels, Gdot qd
  std::string kkt, kkt_rhs, kkt_labels;                         // K, [tau - C; -Gdot qd], rows
  double kkt_epsilon = 0.0;
  MassOrdering ordering = MassOrdering::kCanonical;
  ReadOptions read;  // --strict, --independent, --loops
};

ExportOptions parse_options(const std::vector<std::string>& args) {
  ExportOptions options;
  const std::pair<const char*, std::string ExportOptions::*> file_options[] = {
      {"--state", &ExportOptions::state},
      {"--mass", &ExportOptions::mass},
      {"--factor", &ExportOptions::factor},
      {"--perm", &ExportOptions::permutation},
      {"--kernel", &ExportOptions::kernel},
      {"--resolvent", &ExportOptions::resolvent},
      {"--constraints", &ExportOptions::constraints},
      {"--constraint-labels", &ExportOptions::constraint_labels},
      {"--constraint-bias", &ExportOptions::constraint_bias},
      {"--kkt", &ExportOptions::kkt},
      {"--kkt-rhs", &ExportOptions::kkt_rhs},
      {"--kkt-labels", &ExportOptions::kkt_labels}};
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    bool matched = false;
    for (const auto& [name, member] : file_options)
      if (arg == name) {
        if (i + 1 >= args.size()) throw UsageError(arg + " needs a file (" + kExportUsage + ")");
        options.*member = args[++i];
        matched = true;
      }
    if (matched || parse_model_option(args, i, options.read, kExportUsage)) continue;
    if (arg == "--kkt-eps") {
      if (i + 1 >= args.size())
        throw UsageError(std::string("--kkt-eps needs a number (") + kExportUsage + ")");
      const std::string& value = args[++i];
      std::size_t used = 0;
      try {
        options.kkt_epsilon = std::stod(value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (value.empty() || used != value.size() || !std::isfinite(options.kkt_epsilon) ||
          options.kkt_epsilon < 0)
        throw UsageError("--kkt-eps must be a number >= 0, not '" + value + "'");
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
  const bool wants_constraints = !options.constraints.empty() ||
                                 !options.constraint_labels.empty() ||
                                 !options.constraint_bias.empty() || !options.kkt.empty() ||
                                 !options.kkt_rhs.empty() || !options.kkt_labels.empty();
  const bool wants_mass = !options.factor.empty() || !options.permutation.empty() ||
                          !options.kernel.empty() || !options.resolvent.empty();
  if (options.mass.empty() && (wants_mass || !wants_constraints))
    throw UsageError(std::string("missing --mass (or --constraints, --kkt) (") + kExportUsage +
                     ")");
  return options;
}

// "; " between the parts of the summary line (none right after "skograph export MODEL: ").
void separate(std::ostringstream& summary) {
  const std::string text = summary.str();
  if (text.size() < 2 || text.compare(text.size() - 2, 2, ": ") != 0) summary << "; ";
}

// One line per label (the rows of G or K, as --perm gives one line per row of L).
std::string lines_text(const std::vector<std::string>& labels) {
  std::string text;
  for (const std::string& label : labels) text += label + "\n";
  return text;
}

// A vector as a Matrix Market column (every entry stored, zeros included).
std::string column_text(const Eigen::VectorXd& vector) {
  std::vector<Eigen::Triplet<double>> entries;
  for (Eigen::Index i = 0; i < vector.size(); ++i) entries.emplace_back(i, 0, vector(i));
  Eigen::SparseMatrix<double> column(vector.size(), 1);
  column.setFromTriplets(entries.begin(), entries.end());
  return matrix_market_text(column, false);
}

// M (or M_R), its factor and permutation, E_A and A (sparse/sparse_export.hpp).
void export_mass(const ExportOptions& options, const Model& model, const ModelData& data,
                 const ModelSko& exported, std::vector<std::pair<std::string, std::string>>& files,
                 std::ostringstream& summary) {
  const SparseExport matrices(*exported.sko, {exported.hinge_rows, exported.node_rows});
  const std::string description =
      model.is_closed_chain()
          ? "closed chain, " + std::to_string(data.independent.size()) + " of " +
                std::to_string(model.dof_count()) +
                " dofs independent (reduced M_R, rows in the order of the independent dofs)"
          : std::to_string(model.dof_count()) + " dofs";

  // Everything is computed first, then written all or nothing.
  const Eigen::SparseMatrix<double>& mass = matrices.mass();
  if (!Eigen::Map<const Eigen::VectorXd>(mass.valuePtr(), mass.nonZeros()).allFinite())
    throw UsageError(options.model + ": the mass matrix is not finite at this state");
  files.emplace_back(options.mass, matrix_market_text(mass, true));
  summary << description << ", nnz(M) " << mass.nonZeros();
  if (!options.factor.empty() || !options.permutation.empty()) {
    const std::unique_ptr<CholmodFactorization> chol = matrices.factorization(options.ordering);
    summary << ", " << ordering_name(options.ordering) << " ordering nnz(L) "
            << chol->factor_nonzeros() << " (fill "
            << chol->factor_nonzeros() - matrices.lower_nonzeros() << "), " << chol->flops()
            << " flops";
    if (!options.factor.empty()) {
      if (!model.massless_joints().empty())
        throw UsageError(options.model + ": the mass matrix is singular (joint '" +
                         model.mechanism().joints[model.massless_joints().front()].name +
                         "' moves no mass: every link below it is massless), so it has no "
                         "Cholesky factor (--factor)");
      try {
        chol->factorize(mass);
      } catch (const SingularMassMatrixError& e) {
        throw UsageError(options.model + ": " + e.what() + " at this state");
      }
      files.emplace_back(options.factor, matrix_market_text(chol->factor(), false));
    }
    if (!options.permutation.empty())
      files.emplace_back(options.permutation, permutation_text(chol->permutation()));
  }
  // E and A per node (6 rows each), in the file's joint order for trees.
  if (!options.kernel.empty())
    files.emplace_back(options.kernel, matrix_market_text(matrices.kernel(), false));
  if (!options.resolvent.empty())
    files.emplace_back(options.resolvent, matrix_market_text(matrices.resolvent(), false));
}

// G's independent rows, their labels and Gdot qd at the closed state (model/constraints.hpp).
void export_constraints(const ExportOptions& options, const Model& model, ModelData& data,
                        const ModelState& state,
                        std::vector<std::pair<std::string, std::string>>& files,
                        std::ostringstream& summary) {
  ConstraintSystem system;
  try {
    system = constraint_system(model, data, state.q, state.qd);
  } catch (const Error& e) {  // qd cannot be closed at a singular configuration
    throw UsageError(naming_file(options.state.empty() ? options.model : options.state, e.what()));
  }
  separate(summary);
  summary << "G " << system.jacobian.rows() << " x " << system.jacobian.cols() << " (the "
          << system.jacobian.rows() << " independent of " << system.stacked_rows
          << " constraint rows the embedding's rank-revealing factorization keeps), nnz(G) "
          << system.jacobian.nonZeros();
  if (!options.constraints.empty())
    files.emplace_back(options.constraints, matrix_market_text(system.jacobian, false));
  if (!options.constraint_labels.empty())
    files.emplace_back(options.constraint_labels, lines_text(system.labels));
  if (!options.constraint_bias.empty())
    files.emplace_back(options.constraint_bias, column_text(system.bias));
}

// K = [M G*; G -eI] in the fill-controlled order, [tau - C; -Gdot qd] and its row labels
// (report/kkt_export.hpp).
void export_kkt(const ExportOptions& options, const Model& model, ModelData& data,
                const ModelState& state, std::vector<std::pair<std::string, std::string>>& files,
                std::ostringstream& summary) {
  report::ModelKkt kkt;
  try {
    kkt = report::model_kkt(model, data, state.q, state.qd, state.tau, state.gravity,
                            options.kkt_epsilon);
  } catch (const Error& e) {  // qd cannot be closed at a singular configuration
    throw UsageError(naming_file(options.state.empty() ? options.model : options.state, e.what()));
  }
  separate(summary);
  summary << report::kkt_summary(kkt);
  if (!options.kkt.empty())
    files.emplace_back(options.kkt, matrix_market_text(kkt.system->matrix(), true));
  if (!options.kkt_rhs.empty()) files.emplace_back(options.kkt_rhs, column_text(kkt.right_side));
  if (!options.kkt_labels.empty()) files.emplace_back(options.kkt_labels, lines_text(kkt.labels));
}

int run_export(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const ExportOptions options = parse_options(args);
  const Model model = load_model(options.model, options.read);
  keep_warnings(model);
  ModelData data(model);
  // The state in the file's dof order, in the model's coordinates (converted across --base).
  const ModelState state = load_state(options.state, model);
  // Trees: the mechanism's SKO model, rows in the file's dof order. Closed chains: the
  // constraint-embedded model (constraint-embedding sections 5-7), whose M is the reduced
  // M_R = X* M X, rows in the order of the independent dofs as the file lists them.
  ModelSko exported;
  try {
    exported = model_sko(model, data, state.q, true);
  } catch (const Error& e) {  // the loops cannot be closed, or close only at a singular state
    // Blame the state, else the loop file that declared the failing loop, else the model.
    const Declaration declared = loop_declaration(model.mechanism(), e);
    throw UsageError(naming_file(!options.state.empty() ? options.state
                                 : declared.file.empty()
                                     ? options.model
                                     : declared.file + ":" + std::to_string(declared.line),
                                 e.what()));
  }
  add_state_messages(options.model, state_messages(model, data));
  std::vector<std::pair<std::string, std::string>> files;
  std::ostringstream summary;
  summary << "skograph export " << options.model << ": ";
  if (!options.mass.empty()) export_mass(options, model, data, exported, files, summary);
  if (!options.constraints.empty() || !options.constraint_labels.empty() ||
      !options.constraint_bias.empty())
    export_constraints(options, model, data, state, files, summary);
  if (!options.kkt.empty() || !options.kkt_rhs.empty() || !options.kkt_labels.empty())
    export_kkt(options, model, data, state, files, summary);
  bool to_standard_output = false;
  for (const auto& file : files)
    to_standard_output = to_standard_output || is_standard_output(file.first);
  if (to_standard_output && files.size() > 1)
    throw UsageError(
        "'-' (standard output) only when one file is written; name the files of --mass, "
        "--factor, --perm, --kernel, --resolvent and the constraints");
  write_command_outputs(files, out);
  summary << "; wrote";
  for (const auto& file : files) summary << " " << file.first;
  // With the matrix on standard output, the summary goes to standard error.
  (to_standard_output ? err : out) << summary.str() << "\n";
  return kExitOk;
}

}  // namespace

int export_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return run_export(args, out, err);
}

}  // namespace skograph::cli
