#include "operators_command.hpp"

#include <iomanip>
#include <ostream>
#include <sstream>

#include "dynamics_report.hpp"
#include "skograph/cli/exit_status.hpp"
#include "skograph/model/kinematics.hpp"
#include "skograph/model/operators.hpp"
#include "skograph/report/json_output.hpp"
#include "usage.hpp"
#include "warnings.hpp"

namespace skograph::cli {

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kOperatorsUsage =
    "usage: skograph operators MODEL [--state S.json] [--frames NAME,...|all] [--json] "
    "[--strict] [--independent JOINT,...] [--loops LOOPS.yaml] [--base LINK]";

void write_rows(std::ostringstream& text, const Eigen::MatrixXd& matrix) {
  for (Eigen::Index i = 0; i < matrix.rows(); ++i) {
    text << "   ";
    for (Eigen::Index j = 0; j < matrix.cols(); ++j)
      text << " " << std::setw(12) << matrix(i, j) + 0.0;  // no "-0"
    text << "\n";
  }
}

}  // namespace

int operators_command(const std::vector<std::string>& arguments, std::ostream& out, std::ostream&) {
  const FrameCommandArguments args = parse_frame_command_arguments(arguments, kOperatorsUsage);
  const Model model = load_model(args.file, args.read);
  keep_warnings(model);
  const ModelState state = load_state(args.state_file, model);
  const std::vector<std::string> frames = args.all_frames ? frame_names(model) : args.frames;
  for (const std::string& name : frames) model_frame(model, name);  // unknown: one line
  ModelData data(model);
  ModelOperators operators;
  std::vector<OperationalSpace> spaces;
  try {
    const ClosedState closed = close_state(model, data, state.q, state.qd);
    operators = model_operators(model, data, closed.q);
    spaces = operational_space(model, data, closed.q, frames, operators.mass_inverse);
    close_state(model, data, closed.q, closed.qd);  // data.independent at the state
  } catch (const InputError&) {
    throw;
  } catch (const UsageError&) {  // a call the model does not take (flexible links): as worded
    throw;
  } catch (const SingularMassMatrixError& e) {
    throw UsageError(args.file + ": " + e.what());
  } catch (const Error& e) {  // cannot close, singular configuration
    throw closure_failure(args.file, args.state_file, e, model.mechanism());
  }
  add_state_messages(args.file, state_messages(model, data));

  if (args.json) {
    Json json;
    json["dofs"] = operators.dofs;
    json["log_det_M"] = operators.log_det_mass;
    json["M_inverse"] = report::matrix_json(operators.mass_inverse);
    json["innovations_factor"] = report::matrix_json(operators.innovations_factor);
    json["innovations_inverse"] = report::matrix_json(operators.innovations_inverse);
    Json blocks = Json::array();
    for (const Eigen::MatrixXd& block : operators.joint_blocks)
      blocks.push_back(report::matrix_json(block));
    json["D"] = blocks;
    json["D_dofs"] = operators.joint_block_dofs;
    Json inertia = Json::object(), compliance = Json::object();
    for (std::size_t f = 0; f < frames.size(); ++f) {
      inertia[frames[f]] =
          spaces[f].has_inertia ? report::matrix_json(spaces[f].inertia) : Json(nullptr);
      compliance[frames[f]] = report::matrix_json(spaces[f].compliance);
    }
    json["operational_space"] = inertia;
    json["operational_space_compliance"] = compliance;
    if (model.is_closed_chain()) json["independent"] = data.independent;
    out << report::format_json(json);
    return kExitOk;
  }

  std::ostringstream text;
  text << std::setprecision(6);
  text << "skograph operators " << args.file << ": " << operators.dofs.size()
       << (operators.dofs.size() == 1 ? " dof" : " dofs");
  if (model.is_closed_chain())
    text << " (the independent of " << model.dof_count()
         << "; the constraint-embedded model, M_R = X* M X)";
  text << "\nlog det M " << operators.log_det_mass << "\n";
  text << "rows and columns:";
  for (const std::string& name : operators.dofs) text << " " << name;
  text << "\nM^-1 (by the innovations factorization, part II Eq. 51)\n";
  write_rows(text, operators.mass_inverse);
  text << "innovations factor [I + H A K] (M = [I + H A K] D [I + H A K]*, Eq. 49)\n";
  write_rows(text, operators.innovations_factor);
  text << "its inverse [I - H psi K] (Eq. 50)\n";
  write_rows(text, operators.innovations_inverse);
  text << "D = H P H* per joint (Eq. 32)\n";
  for (std::size_t b = 0; b < operators.joint_blocks.size(); ++b) {
    text << "  ";
    for (const std::string& name : operators.joint_block_dofs[b]) text << " " << name;
    text << "\n";
    write_rows(text, operators.joint_blocks[b]);
  }
  for (std::size_t f = 0; f < frames.size(); ++f) {
    text << "operational space of " << frames[f]
         << " (world axes about its origin, [angular; linear])\n  inertia (J M^-1 J*)^-1";
    if (spaces[f].has_inertia) {
      text << "\n";
      write_rows(text, spaces[f].inertia);
    } else {
      text << ": none (the frame has fewer than six independent directions of motion)\n";
    }
    text << "  compliance J M^-1 J*\n";
    write_rows(text, spaces[f].compliance);
  }
  out << text.str();
  return kExitOk;
}

}  // namespace skograph::cli
